/**
 * Checks the one declaration of a log's fields (`LOG_FIELDS`) against the document's `LogSummary`
 * and `LogRecord`, so the stored row, the API view and the document cannot drift apart: a field
 * missing on either side, or a type that disagrees, fails `npm run codegen` naming the field.
 */
import type { ColumnKind } from "../../src/records/log-fields.ts";
import { refName, type JsonSchema, type OpenApiDocument } from "./document.ts";

/** What codegen needs to know of a field; `LOG_FIELDS` fits it. */
export interface LogFieldSpec {
  kind: ColumnKind;
  api: string;
  nullable?: true;
  detail?: true;
  view?: "json-body" | "guardrail-results" | "attempts";
}

/** Properties the view adds itself, not from a field. */
const VIEW_ONLY = new Set(["object"]);

/** The JSON type each column kind is shown as. */
const KIND_TYPES: Record<ColumnKind, readonly string[]> = {
  text: ["string"],
  integer: ["integer"],
  real: ["number"],
  boolean: ["boolean"],
  json: ["object", "array"],
};

/** What a view turns its field into: `any` is any JSON (no `type` in the schema). */
const VIEW_TYPES: Record<NonNullable<LogFieldSpec["view"]>, { types: readonly string[] | "any"; nullable: boolean }> = {
  "json-body": { types: "any", nullable: true },
  "guardrail-results": { types: ["array"], nullable: false },
  attempts: { types: ["array"], nullable: false },
};

interface ObjectShape {
  properties: Record<string, JsonSchema>;
  required: Set<string>;
}

function deref(document: OpenApiDocument, schema: JsonSchema): JsonSchema {
  if (typeof schema.$ref !== "string") return schema;
  const found = document.components.schemas[refName(schema.$ref)];
  if (!found) throw new Error(`Unresolved ${schema.$ref}`);
  return deref(document, found);
}

/** The properties and required names of an object schema, `allOf` parts merged. */
function objectShape(document: OpenApiDocument, schema: JsonSchema): ObjectShape {
  const resolved = deref(document, schema);
  const shape: ObjectShape = {
    properties: { ...((resolved.properties as Record<string, JsonSchema> | undefined) ?? {}) },
    required: new Set((resolved.required as string[] | undefined) ?? []),
  };
  for (const part of (resolved.allOf as JsonSchema[] | undefined) ?? []) {
    const inner = objectShape(document, part);
    Object.assign(shape.properties, inner.properties);
    for (const name of inner.required) shape.required.add(name);
  }
  return shape;
}

function typesOf(schema: JsonSchema): string[] {
  const type = schema.type;
  return type === undefined ? [] : Array.isArray(type) ? (type as string[]) : [type as string];
}

const list = (types: readonly string[]): string => types.join(" | ");

/** Where a field's value sits in the document, or why it is not there. */
function locate(
  document: OpenApiDocument,
  shape: ObjectShape,
  schemaName: string,
  api: string,
): { schema: JsonSchema; required: boolean } | string {
  const [head, member] = api.split(".") as [string, string | undefined];
  const property = shape.properties[head];
  if (property === undefined) return `${schemaName} has no property "${head}"`;
  if (member === undefined) return { schema: deref(document, property), required: shape.required.has(head) };
  if (!shape.required.has(head)) return `${schemaName}.${head} is not required`;
  const group = objectShape(document, property);
  const inner = group.properties[member];
  if (inner === undefined) return `${schemaName}.${head} has no property "${member}"`;
  return { schema: deref(document, inner), required: group.required.has(member) };
}

/** Why the document's schema does not show the field as the view does; null when it does. */
function typeProblem(field: LogFieldSpec, schema: JsonSchema): string | null {
  const declared = typesOf(schema);
  const expected = field.view ? VIEW_TYPES[field.view] : { types: KIND_TYPES[field.kind], nullable: field.nullable === true };
  if (expected.types === "any") {
    return declared.length === 0 ? null : `the document says ${list(declared)}, the view gives any JSON`;
  }
  const nonNull = declared.filter((type) => type !== "null");
  const nullable = declared.includes("null");
  if (nonNull.length !== 1 || !expected.types.includes(nonNull[0] as string)) {
    return `the document says ${declared.length === 0 ? "any JSON" : list(declared)}, the field is ${list(expected.types)}${expected.nullable ? " | null" : ""}`;
  }
  if (nullable !== expected.nullable) {
    return expected.nullable ? "the field may be null, the document does not allow null" : "the document allows null, the field is never null";
  }
  return null;
}

/**
 * Every disagreement between the fields and the document, one message each, naming the field or
 * property; empty when they agree. Summary fields belong in `LogSummary`, detail fields only in
 * `LogRecord`; every property the view writes is required, since the view always writes it.
 */
export function logShapeProblems(document: OpenApiDocument, fields: Readonly<Record<string, LogFieldSpec>>): string[] {
  const problems: string[] = [];
  const summary = objectShape(document, { $ref: "#/components/schemas/LogSummary" });
  const record = objectShape(document, { $ref: "#/components/schemas/LogRecord" });
  const covered = new Set<string>(VIEW_ONLY);

  for (const [name, field] of Object.entries(fields)) {
    const label = `log field ${name} ("${field.api}")`;
    const [head] = field.api.split(".") as [string];
    covered.add(field.api);
    covered.add(head);
    if (field.detail && head in summary.properties) {
      problems.push(`${label}: shown only in the full record, but LogSummary has "${head}"`);
      continue;
    }
    const found = locate(document, field.detail ? record : summary, field.detail ? "LogRecord" : "LogSummary", field.api);
    if (typeof found === "string") {
      problems.push(`${label}: ${found}`);
      continue;
    }
    if (!found.required) problems.push(`${label}: the document does not list it as required, but the view always writes it`);
    const mismatch = typeProblem(field, found.schema);
    if (mismatch) problems.push(`${label}: ${mismatch}`);
  }

  for (const [schemaName, shape] of [["LogSummary", summary], ["LogRecord", record]] as const) {
    for (const [head, property] of Object.entries(shape.properties)) {
      if (schemaName === "LogRecord" && head in summary.properties) continue;
      if (!covered.has(head)) {
        problems.push(`${schemaName}.${head}: no log field has api "${head}"`);
        continue;
      }
      if (VIEW_ONLY.has(head) || !typesOf(deref(document, property)).includes("object")) continue;
      for (const member of Object.keys(objectShape(document, property).properties)) {
        if (!covered.has(`${head}.${member}`)) problems.push(`${schemaName}.${head}.${member}: no log field has api "${head}.${member}"`);
      }
    }
  }
  return [...new Set(problems)];
}
