/**
 * Every schema of the document states its `type` (or is a `$ref`): the API reference page's
 * viewer reports a schema without one as invalid. Where a schema's `anyOf`, `oneOf` or `allOf`
 * already decides what it allows, or its `type` names every JSON type (any JSON), that `type` only
 * restates it; code is generated from the document without such restatements, so the generated
 * checks stay exactly what the options say.
 */
import { refName, type JsonSchema } from "./document.ts";

const ANY_JSON = ["string", "number", "boolean", "object", "array", "null"];
const SCHEMA_MAPS = ["properties", "patternProperties", "$defs"];
const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];
const SCHEMA_VALUES = ["items", "additionalProperties", "not", "contentSchema", "propertyNames"];

interface Document {
  paths?: unknown;
  components: { schemas: Record<string, JsonSchema> } & Record<string, unknown>;
}

/** Where each schema without a `type` or `$ref` sits (`components/schemas/Foo/properties/bar`); empty when none. */
export function untypedSchemas(document: Document): string[] {
  const found: string[] = [];
  forEachSchema(document, (schema, path) => {
    if (schema.type === undefined && schema.$ref === undefined) found.push(path);
    return schema;
  });
  return found;
}

/** A copy of the document whose schemas drop a `type` that their options, or any JSON, already say. */
export function withoutRestatedTypes<T extends Document>(document: T): T {
  const copy = structuredClone(document);
  const components = copy.components.schemas;
  forEachSchema(copy, (schema) => {
    if (schema.type === undefined || !isRestated(schema, components)) return schema;
    const { type: _restated, ...rest } = schema;
    return rest;
  });
  return copy;
}

function isRestated(schema: JsonSchema, components: Record<string, JsonSchema>): boolean {
  const declared = typeList(schema.type);
  if (ANY_JSON.every((type) => declared.includes(type))) return true;
  const implied = impliedTypes(schema, components, new Set());
  return implied !== null && sameSet(declared, implied);
}

/** The types a schema's options allow (null: any, or no options). */
function impliedTypes(schema: JsonSchema, components: Record<string, JsonSchema>, seen: Set<string>): string[] | null {
  let implied: string[] | null = null;
  for (const keyword of ["anyOf", "oneOf"] as const) {
    const options = schema[keyword];
    if (!Array.isArray(options)) continue;
    const union = new Set<string>();
    for (const option of options as JsonSchema[]) {
      const types = ownTypes(option, components, seen);
      if (types === null) return null;
      for (const type of types) union.add(type);
    }
    implied = intersect(implied, [...union]);
  }
  if (Array.isArray(schema.allOf)) {
    for (const part of schema.allOf as JsonSchema[]) implied = intersect(implied, ownTypes(part, components, seen));
  }
  return implied;
}

/** The types one schema allows: its `type`, its target's, or its options' (null: any). */
function ownTypes(schema: JsonSchema, components: Record<string, JsonSchema>, seen: Set<string>): string[] | null {
  if (typeof schema.$ref === "string") {
    const name = refName(schema.$ref);
    const target = components[name];
    if (!target || seen.has(name)) return null;
    return ownTypes(target, components, new Set([...seen, name]));
  }
  if (schema.type !== undefined) return typeList(schema.type);
  return impliedTypes(schema, components, seen);
}

function intersect(left: string[] | null, right: string[] | null): string[] | null {
  if (left === null) return right;
  if (right === null) return left;
  return left.filter((type) => right.includes(type));
}

function typeList(type: unknown): string[] {
  return Array.isArray(type) ? (type as string[]) : [type as string];
}

function sameSet(left: string[], right: string[]): boolean {
  return left.length === right.length && left.every((type) => right.includes(type));
}

/**
 * Calls `visit` on every schema of the document (components, and those inline in operations,
 * parameters, responses and headers), outermost first; its answer replaces the schema.
 */
function forEachSchema(document: Document, visit: (schema: JsonSchema, path: string) => JsonSchema): void {
  const inSchema = (schema: JsonSchema, path: string): JsonSchema => {
    const kept = visit(schema, path);
    for (const key of SCHEMA_VALUES) {
      const value = kept[key];
      if (isObject(value)) kept[key] = inSchema(value, `${path}/${key}`);
    }
    for (const key of SCHEMA_LISTS) {
      const list = kept[key];
      if (Array.isArray(list)) kept[key] = list.map((item: JsonSchema, index) => inSchema(item, `${path}/${key}/${index}`));
    }
    for (const key of SCHEMA_MAPS) {
      const map = kept[key];
      if (isObject(map)) for (const [name, item] of Object.entries(map)) if (isObject(item)) map[name] = inSchema(item, `${path}/${key}/${name}`);
    }
    return kept;
  };
  // Outside the schemas, a schema is the value of a `schema` key (parameters, media types, headers).
  const outside = (value: unknown, path: string): void => {
    if (Array.isArray(value)) value.forEach((item, index) => outside(item, `${path}/${index}`));
    else if (isObject(value)) {
      for (const [key, item] of Object.entries(value)) {
        if (key === "schema" && isObject(item)) value[key] = inSchema(item, `${path}/${key}`);
        else outside(item, `${path}/${key}`);
      }
    }
  };
  const schemas = document.components.schemas;
  for (const [name, schema] of Object.entries(schemas)) schemas[name] = inSchema(schema, `components/schemas/${name}`);
  outside(document.paths, "paths");
  for (const [section, value] of Object.entries(document.components)) if (section !== "schemas") outside(value, `components/${section}`);
}

function isObject(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
