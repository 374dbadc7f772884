import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { LOG_FIELDS } from "../../src/records/log-fields.ts";
import type { JsonSchema, OpenApiDocument } from "./document.ts";
import { logShapeProblems } from "./log-shape.ts";
import { withoutRestatedTypes } from "./schema-types.ts";

/** The document as codegen checks it. */
const source = withoutRestatedTypes(parseYaml(readFileSync(join(import.meta.dirname, "../../openapi/gateway.yaml"), "utf8")) as OpenApiDocument);

/** A copy of the document, changed by `edit`. */
function documentWith(edit: (schemas: Record<string, JsonSchema & { properties: Record<string, JsonSchema>; required: string[] }>) => void): OpenApiDocument {
  const copy = structuredClone(source);
  edit(copy.components.schemas as never);
  return copy;
}

const recordExtension = (schemas: Record<string, JsonSchema>): JsonSchema & { properties: Record<string, JsonSchema> } =>
  (schemas.LogRecord!.allOf as Array<JsonSchema & { properties: Record<string, JsonSchema> }>)[1]!;

describe("the log fields against the document's LogSummary and LogRecord", () => {
  it("agree as committed", () => {
    expect(logShapeProblems(source, LOG_FIELDS)).toEqual([]);
  });

  it("name a field the document lacks", () => {
    const document = documentWith((schemas) => {
      delete schemas.LogSummary!.properties.cost_saved_usd;
    });
    expect(logShapeProblems(document, LOG_FIELDS)).toEqual([`log field costSavedUsd ("cost_saved_usd"): LogSummary has no property "cost_saved_usd"`]);
  });

  it("name a property no field fills", () => {
    const document = documentWith((schemas) => {
      schemas.LogSummary!.properties.config = { type: ["string", "null"] };
      schemas.LogUsage!.properties.audio_tokens = { type: "integer" };
      recordExtension(schemas).properties.raw = { type: "string" };
    });
    expect(logShapeProblems(document, LOG_FIELDS)).toEqual([
      `LogSummary.usage.audio_tokens: no log field has api "usage.audio_tokens"`,
      `LogSummary.config: no log field has api "config"`,
      `LogRecord.raw: no log field has api "raw"`,
    ]);
  });

  it("name a field whose type or nullability disagrees", () => {
    const document = documentWith((schemas) => {
      schemas.LogSummary!.properties.config_version = { type: ["string", "null"] };
      schemas.LogSummary!.properties.provider = { type: "string" };
      schemas.LogSummary!.properties.success = { type: ["boolean", "null"] };
      schemas.LogUsage!.properties.total_tokens = { type: "number" };
      recordExtension(schemas).properties.guardrail_results = { type: "string" };
    });
    expect(logShapeProblems(document, LOG_FIELDS)).toEqual([
      `log field provider ("provider"): the field may be null, the document does not allow null`,
      `log field success ("success"): the document allows null, the field is never null`,
      `log field totalTokens ("usage.total_tokens"): the document says number, the field is integer`,
      `log field configVersion ("config_version"): the document says string | null, the field is integer | null`,
      `log field guardrailResults ("guardrail_results"): the document says string, the field is array`,
    ]);
  });

  it("name a field the document does not require", () => {
    const document = documentWith((schemas) => {
      schemas.LogSummary!.required = schemas.LogSummary!.required.filter((name) => name !== "config_id");
    });
    expect(logShapeProblems(document, LOG_FIELDS)).toEqual([
      `log field configId ("config_id"): the document does not list it as required, but the view always writes it`,
    ]);
  });

  it("name a field declared but absent, and a detail field the summary shows", () => {
    const fields = {
      ...LOG_FIELDS,
      region: { column: "region", kind: "text", api: "region", nullable: true },
      responseBodyTruncated: { ...LOG_FIELDS.responseBodyTruncated, detail: undefined },
    } as const;
    const document = documentWith((schemas) => {
      schemas.LogSummary!.properties.guardrail_results = recordExtension(schemas).properties.guardrail_results!;
    });
    expect(logShapeProblems(document, fields as never)).toEqual([
      `log field responseBodyTruncated ("response.truncated"): LogSummary has no property "response"`,
      `log field guardrailResults ("guardrail_results"): shown only in the full record, but LogSummary has "guardrail_results"`,
      `log field region ("region"): LogSummary has no property "region"`,
    ]);
  });
});
