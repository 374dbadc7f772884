/**
 * `json_schema` — the text must carry JSON that validates against `schema` (a JSON Schema
 * object, draft-07, with ajv-formats formats such as "email" and "date-time"). The JSON is the
 * whole text, else the first ```json fence``` that parses, else the first `{…}`/`[…]` in the text
 * that parses (first 100,000 characters). The schema is compiled when the guardrail is saved, so
 * an invalid schema, an unresolvable `$ref`, an `$async` schema or a `pattern`/`patternProperties`
 * key that is not RE2 syntax (no backreferences, no lookaround) is refused then. Failing
 * explanations name the failing JSON paths and rules, never the values.
 */
import { z } from "zod";
import { findJson } from "../json-extract.ts";
import { compileSchema, schemaErrors } from "../schema-compiler.ts";
import { defineCheck } from "../types.ts";

const params = z.strictObject({
  schema: z.record(z.string(), z.unknown()).superRefine((schema, ctx) => {
    const compiled = compileSchema(schema);
    if (!compiled.ok) ctx.addIssue({ code: "custom", message: `not a usable JSON Schema (${compiled.message})` });
  }),
});

export const jsonSchema = defineCheck({
  type: "json_schema",
  params,
  run: ({ schema }, ctx) => {
    const compiled = compileSchema(schema);
    if (!compiled.ok) return { verdict: false, explanation: `The schema is not usable: ${compiled.message}.` };
    const json = findJson(ctx.text);
    if (!json.found) return { verdict: false, explanation: "The text contains no JSON that parses." };
    if (compiled.validate(json.value) as boolean) return { verdict: true, explanation: "The JSON matches the schema.", data: { source: json.source } };
    const errors = schemaErrors(compiled.validate.errors);
    const summary = errors.slice(0, 3).map((error) => `${error.path} ${error.message}`).join("; ");
    return { verdict: false, explanation: `The JSON does not match the schema: ${summary}.`, data: { source: json.source, errors } };
  },
});
