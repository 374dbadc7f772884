/**
 * Compiled request-body checks: for each operation with a JSON body, an Ajv standalone
 * function compiled from the document's own schema, and a zod schema that uses it
 * (`src/validation/compiled-body.ts`). The check is a fast yes: a body it accepts is one
 * the generated zod schema accepts and returns unchanged, so the body is used as sent.
 * Where the check is also exact (it refuses only what zod refuses), its refusal is final and
 * zod only words it; elsewhere zod decides.
 *
 * The translation keeps that promise by being at least as strict as the zod schema
 * (`zod-schemas.ts`, from json-schema-to-zod) wherever the two could differ:
 * - objects without `additionalProperties` are closed: zod would strip unknown keys;
 * - a property with a `default` is required: zod would fill it in;
 * - integers stay within the safe range, as zod's `.int()` does; numbers are finite;
 * - `format`, `allOf` and any keyword not listed below make that value zod's to judge;
 * - in an `anyOf`, zod keeps the first option that parses, so every option but the last
 *   must return its input unchanged;
 * - `minProperties`, which zod does not check;
 * - a `oneOf` is checked as one only when each of its options is exact (zod counts the
 *   options that pass and returns the input as it is).
 * Each of these but the last makes the check inexact at that value.
 */
import { createRequire } from "node:module";
import type { Ajv2020 as Ajv2020Type } from "ajv/dist/2020.js";
import { HTTP_METHODS, refName, schemaConst, type JsonSchema, type OpenApiDocument } from "./document.ts";
import { zodSource } from "./zod-schemas.ts";

const require = createRequire(import.meta.url);
const { Ajv2020 } = require("ajv/dist/2020") as typeof import("ajv/dist/2020.js");
const standaloneCode = (require("ajv/dist/standalone") as typeof import("ajv/dist/standalone/index.js")).default;

/** Keywords that describe and never constrain: dropped. */
const ANNOTATIONS = new Set(["description", "title", "example", "examples", "deprecated", "readOnly", "writeOnly", "$comment"]);
/** Keywords Ajv checks exactly as zod does (`maxProperties` through the check `zod-schemas.ts` adds), or more strictly (`minProperties`, which zod ignores). */
const COPIED = new Set([
  "type", "enum", "const", "required", "minLength", "maxLength", "pattern", "minimum", "maximum",
  "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems", "minProperties", "maxProperties",
]);
const HANDLED = new Set([...ANNOTATIONS, ...COPIED, "$ref", "properties", "additionalProperties", "items", "anyOf", "oneOf", "default"]);
const REJECT: JsonSchema = { not: {} };
const COMPONENTS_ID = "components";

/** How a translated check relates to zod's verdict on the same value. */
export interface CheckTraits {
  /** True when zod returns every value it accepts unchanged (no stripped keys, no defaults). */
  preserving: boolean;
  /** True when the check refuses only values zod refuses too: a refusal is then final. */
  exact: boolean;
}

interface Translated extends CheckTraits {
  schema: JsonSchema;
}

/** A value left to zod: the check refuses it (stricter than zod, never looser). */
const LEFT_TO_ZOD: Translated = { schema: REJECT, preserving: true, exact: false };

/** Translates one schema of the document into the schema Ajv checks; `$ref`s point at the components' `$defs`. */
export function ajvSchema(schema: JsonSchema, refs: ReadonlyMap<string, CheckTraits>): Translated {
  if (typeof schema.$ref === "string") {
    const name = refName(schema.$ref);
    const traits = refs.get(name) ?? { preserving: false, exact: false };
    return { schema: { $ref: `${COMPONENTS_ID}#/$defs/${name}` }, ...traits };
  }
  if (Object.keys(schema).some((key) => !HANDLED.has(key))) return LEFT_TO_ZOD;
  const out: JsonSchema = {};
  let preserving = schema.default === undefined;
  let exact = true;
  const take = (child: Translated): JsonSchema => {
    preserving &&= child.preserving;
    exact &&= child.exact;
    return child.schema;
  };
  for (const key of Object.keys(schema)) if (COPIED.has(key)) out[key] = schema[key];
  if (schema.minProperties !== undefined) exact = false;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes("integer")) {
    // Bounds on every number: stricter than zod where `number` is listed too, never looser.
    out.minimum = Math.max(typeof schema.minimum === "number" ? schema.minimum : -Infinity, Number.MIN_SAFE_INTEGER);
    out.maximum = Math.min(typeof schema.maximum === "number" ? schema.maximum : Infinity, Number.MAX_SAFE_INTEGER);
    if (types.includes("number")) exact = false;
  }
  if (schema.properties !== undefined || types.includes("object") || schema.additionalProperties !== undefined) {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((schema.required as string[] | undefined) ?? []);
    const translated: Record<string, JsonSchema> = {};
    for (const [name, property] of Object.entries(properties)) {
      translated[name] = take(ajvSchema(property, refs));
      if (property.default !== undefined) {
        required.add(name);
        exact = false;
      }
    }
    if (schema.properties !== undefined) out.properties = translated;
    if (required.size > 0) out.required = [...required];
    const extra = schema.additionalProperties;
    if (extra === undefined || extra === false) {
      out.additionalProperties = false;
      // zod strips unknown keys here: it accepts them but returns another value.
      if (extra === undefined) {
        preserving = false;
        exact = false;
      }
    } else if (extra === true) {
      out.additionalProperties = true;
    } else {
      out.additionalProperties = take(ajvSchema(extra as JsonSchema, refs));
    }
  }
  if (schema.items !== undefined) out.items = take(ajvSchema(schema.items as JsonSchema, refs));
  if (Array.isArray(schema.anyOf)) {
    const options = (schema.anyOf as JsonSchema[]).map((option) => ajvSchema(option, refs));
    // `X or null` is generated as `X.nullable()`, which tries null first: X is then the last option.
    const tried = isNullableForm(schema) ? [...options.filter(isNullOption), ...options.filter((option) => !isNullOption(option))] : options;
    if (tried.slice(0, -1).some((option) => !option.preserving)) return LEFT_TO_ZOD;
    out.anyOf = options.map(take);
  }
  if (Array.isArray(schema.oneOf)) {
    const options = (schema.oneOf as JsonSchema[]).map((option) => ajvSchema(option, refs));
    // zod runs every option and keeps the input: only exact options count passes as zod does.
    if (!options.every((option) => option.exact)) return LEFT_TO_ZOD;
    out.oneOf = options.map((option) => option.schema);
  }
  return { schema: out, preserving, exact };
}

/** Mirrors `nullableOf` in `zod-schemas.ts`: an `anyOf` alone, of one schema and a bare null. */
function isNullableForm(schema: JsonSchema): boolean {
  const options = schema.anyOf as JsonSchema[];
  const isNull = (option: JsonSchema) => option.type === "null" && Object.keys(option).length === 1;
  return Object.keys(schema).length === 1 && options.length === 2 && options.filter(isNull).length === 1;
}

function isNullOption(option: Translated): boolean {
  return option.schema.type === "null" && Object.keys(option.schema).length === 1;
}

/**
 * The Ajv the checks are compiled with: strict (an unknown keyword is an error), finite numbers
 * only, patterns without the `u` flag (zod builds `new RegExp(pattern)`), lengths in code points.
 */
export function createAjv(): Ajv2020Type {
  return new Ajv2020({
    strict: true,
    allErrors: false,
    messages: false,
    strictNumbers: true,
    unicodeRegExp: false,
    code: { source: true, esm: true, lines: true },
  });
}

/** Operations with a JSON request body, in a stable order, each with its body schema. */
export function jsonBodies(document: OpenApiDocument): Array<{ operationId: string; schema: JsonSchema }> {
  const bodies: Array<{ operationId: string; schema: JsonSchema }> = [];
  for (const path of Object.keys(document.paths).sort()) {
    for (const method of HTTP_METHODS) {
      const operation = document.paths[path]?.[method];
      const schema = operation?.requestBody?.content["application/json"]?.schema;
      if (operation && schema) bodies.push({ operationId: operation.operationId, schema });
    }
  }
  return bodies;
}

/** Name of the generated zod schema that validates an operation's JSON body. */
export function bodySchemaConst(operationId: string): string {
  return `${operationId}Body`;
}

/** The component schemas translated in dependency order, so a `$ref` knows how its target's check relates to zod. */
function translateComponents(document: OpenApiDocument, order: string[]) {
  const traits = new Map<string, CheckTraits>();
  const defs: Record<string, JsonSchema> = {};
  for (const name of order) {
    const translated = ajvSchema(document.components.schemas[name] as JsonSchema, traits);
    traits.set(name, { preserving: translated.preserving, exact: translated.exact });
    defs[name] = translated.schema;
  }
  return { defs, traits };
}

/**
 * Renders `src/generated/body-validators.gen.ts`: the Ajv standalone checks and, per operation
 * with a JSON body, `<operationId>Body`, the zod schema its route validates the body with.
 * `componentOrder` lists the component schemas so that each follows the ones it references.
 */
export function renderBodyValidators(document: OpenApiDocument, componentOrder: string[]): string {
  const { defs, traits } = translateComponents(document, componentOrder);
  const ajv = createAjv();
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: defs });
  const bodies = jsonBodies(document);
  const exports: Record<string, string> = {};
  const exact = new Map<string, boolean>();
  for (const { operationId, schema } of bodies) {
    const id = `${operationId}.body`;
    const translated = ajvSchema(schema, traits);
    ajv.addSchema({ $id: id, ...translated.schema });
    exports[checkName(operationId)] = id;
    exact.set(operationId, translated.exact);
  }
  // Ajv's runtime helpers (the code-point length) are `require`d: give the ES module a `require`.
  const code = standaloneCode(ajv, exports).replace(/^"use strict";/, "").trim();
  const declarations = bodies.map(
    ({ operationId, schema }) =>
      `export const ${bodySchemaConst(operationId)} = compiledBody(${zodSchemaFor(schema)}, ${checkName(operationId)} as BodyCheck, { exact: ${exact.get(operationId)} });`,
  );
  const zodImports = new Set<string>();
  for (const line of declarations) for (const match of line.matchAll(/\b([A-Z][A-Za-z0-9]*Schema)\b/g)) zodImports.add(match[1] as string);
  return [
    "// @ts-nocheck: Ajv's standalone code below is untyped JavaScript; the exports at the end are typed.",
    'import { compiledBody, type BodyCheck } from "../validation/compiled-body.ts";',
    'import { createRequire } from "node:module";',
    'import { z } from "@hono/zod-openapi";',
    `import { ${[...zodImports].sort().join(", ")} } from "./schemas.gen.ts";`,
    "",
    "const require = createRequire(import.meta.url);",
    code,
    "",
    ...declarations,
    "",
  ].join("\n");
}

function checkName(operationId: string): string {
  return `${operationId}BodyCheck`;
}

function zodSchemaFor(schema: JsonSchema): string {
  return typeof schema.$ref === "string" ? schemaConst(refName(schema.$ref)) : zodSource(schema);
}
