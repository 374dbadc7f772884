/**
 * JSON Schema (as OpenAI clients write it for tools and `response_format`) cleaned down to the
 * OpenAPI 3.0 subset Gemini's `Schema` accepts; Gemini answers 400 to any field it does not
 * know, so unknown keywords are dropped rather than passed. Pure, never throws.
 * https://ai.google.dev/api/caching#Schema
 *
 * Kept: type, format (only the values Gemini lists), title, description, nullable, enum (strings),
 * properties, required (only names that are properties), items, anyOf, minItems, maxItems,
 * minProperties, maxProperties, minLength, maxLength, pattern, minimum, maximum, default, example,
 * propertyOrdering.
 * Rewritten: local `$ref`s into `$defs`/`definitions` are inlined (a recursive one becomes `{}`);
 * `oneOf` becomes `anyOf`; `allOf` is merged into one schema; a `null` type or `anyOf` branch
 * (or `enum` value) becomes `nullable: true`; `const` becomes a one-value `enum`; `examples` becomes `example`.
 * Dropped: everything else (`additionalProperties`, `$schema`, `$id`, `strict`, `not`,
 * `if`/`then`/`else`, `patternProperties`, `exclusiveMinimum`/`exclusiveMaximum`, `multipleOf`,
 * `uniqueItems`, tuple `items`/`prefixItems`, non-string `enum`s, other `format`s).
 */
import type { JsonObject } from "../provider.ts";
import { arrayOf, isObject, stringOf } from "./values.ts";

const COPIED = [
  "title",
  "description",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "default",
  "example",
  "propertyOrdering",
] as const;

/** The `format` values Gemini documents, per type. */
const FORMATS: Readonly<Record<string, readonly string[]>> = {
  string: ["enum", "date-time"],
  integer: ["int32", "int64"],
  number: ["float", "double"],
};

const TYPES = new Set(["string", "number", "integer", "boolean", "array", "object"]);

/** A local `$ref` resolves at most this deep; past it (or on a cycle) the schema is `{}`. */
const MAX_REF_DEPTH = 16;

/** The Gemini form of a JSON Schema; a non-object gives `{}`. */
export function toGeminiSchema(schema: unknown): JsonObject {
  const root = isObject(schema) ? schema : {};
  const definitions = { ...(isObject(root.definitions) ? root.definitions : {}), ...(isObject(root.$defs) ? root.$defs : {}) };
  return clean(root, definitions, []);
}

function clean(schema: unknown, definitions: JsonObject, refs: readonly string[]): JsonObject {
  if (!isObject(schema)) return {};
  const ref = stringOf(schema.$ref);
  if (ref !== undefined) {
    const name = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref)?.[1];
    const target = name === undefined ? undefined : definitions[decodePointer(name)];
    if (!isObject(target) || refs.includes(ref) || refs.length >= MAX_REF_DEPTH) return {};
    const { $ref: _ref, ...siblings } = schema;
    return clean({ ...target, ...siblings }, definitions, [...refs, ref]);
  }
  if (Array.isArray(schema.allOf)) {
    const { allOf, ...rest } = schema;
    return clean(arrayOf(allOf).reduce<JsonObject>((merged, part) => mergeSchemas(merged, resolved(part, definitions)), rest), definitions, refs);
  }

  const out: JsonObject = {};
  for (const key of COPIED) if (schema[key] !== undefined) out[key] = schema[key];
  if (out.example === undefined && Array.isArray(schema.examples) && schema.examples.length > 0) out.example = schema.examples[0];

  let nullable = schema.nullable === true;
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter((type): type is string => typeof type === "string");
  if (types.includes("null")) nullable = true;
  const concrete = types.filter((type) => TYPES.has(type));

  const branches = arrayOf(schema.anyOf ?? schema.oneOf);
  const nonNull = branches.filter((branch) => !(isObject(branch) && branch.type === "null"));
  if (nonNull.length < branches.length) nullable = true;
  if (nonNull.length === 1) Object.assign(out, clean(nonNull[0], definitions, refs), stripUndefined(out));
  else if (nonNull.length > 1) out.anyOf = nonNull.map((branch) => clean(branch, definitions, refs));

  if (concrete.length === 1) out.type = concrete[0];
  else if (concrete.length > 1 && out.anyOf === undefined) out.anyOf = concrete.map((type) => ({ type }));

  const listed = schema.const !== undefined ? [schema.const] : arrayOf(schema.enum);
  const values = listed.filter((value) => value !== null);
  if (values.length < listed.length) nullable = true;
  if (values.length > 0 && values.every((value) => typeof value === "string")) {
    out.enum = values;
    out.type ??= "string";
  }

  const type = stringOf(out.type);
  const format = stringOf(schema.format);
  if (type !== undefined && format !== undefined && FORMATS[type]?.includes(format)) out.format = format;

  if (isObject(schema.properties)) {
    const properties: JsonObject = {};
    for (const [name, property] of Object.entries(schema.properties)) properties[name] = clean(property, definitions, refs);
    out.properties = properties;
    out.type ??= "object";
    const required = arrayOf(schema.required).filter((name): name is string => typeof name === "string" && name in properties);
    if (required.length > 0) out.required = required;
  }
  if (isObject(schema.items)) {
    out.items = clean(schema.items, definitions, refs);
    out.type ??= "array";
  }
  if (nullable) out.nullable = true;
  return out;
}

function resolved(schema: unknown, definitions: JsonObject): JsonObject {
  if (!isObject(schema)) return {};
  const name = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(stringOf(schema.$ref) ?? "")?.[1];
  const target = name === undefined ? undefined : definitions[decodePointer(name)];
  return isObject(target) ? target : schema;
}

/** `allOf` parts as one schema: properties and `required` united, other keywords the last part's. */
function mergeSchemas(base: JsonObject, part: JsonObject): JsonObject {
  const merged: JsonObject = { ...base, ...part };
  if (isObject(base.properties) || isObject(part.properties)) {
    merged.properties = { ...(isObject(base.properties) ? base.properties : {}), ...(isObject(part.properties) ? part.properties : {}) };
  }
  const required = [...arrayOf(base.required), ...arrayOf(part.required)];
  if (required.length > 0) merged.required = [...new Set(required)];
  return merged;
}

function stripUndefined(object: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}
