/**
 * Gemini's `Schema` (an OpenAPI 3.0 subset) as the JSON Schema chat completions take for tool
 * parameters and structured answers (pure, never throws). Gemini names types in upper case
 * (`OBJECT`, `STRING`), marks optional values `nullable`, writes its int64 bounds (`minItems`,
 * `maxLength`…) as strings and orders properties with `propertyOrdering`; JSON Schema has lower
 * case types, a `null` type, numbers and no ordering keyword. Everything else is kept as written,
 * so a schema that is JSON Schema already passes unchanged.
 * https://ai.google.dev/api/caching#Schema
 */
import type { JsonObject } from "../../providers/provider.ts";
import { isObject } from "./json.ts";

/** The int64 fields of Gemini's `Schema`, which its JSON carries as decimal strings. */
const INT64_FIELDS = ["minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"] as const;

/** A schema's JSON Schema form; a non-object gives `{}`. */
export function jsonSchemaFromGemini(schema: unknown): JsonObject {
  if (!isObject(schema)) return {};
  const { propertyOrdering: _ordering, nullable, example, ...out } = schema;
  if (typeof out.type === "string") {
    const type = out.type.toLowerCase();
    if (type === "type_unspecified") delete out.type;
    else out.type = nullable === true && type !== "null" ? [type, "null"] : type;
  }
  for (const field of INT64_FIELDS) {
    const value = out[field];
    if (typeof value === "string" && /^\d+$/.test(value)) out[field] = Number(value);
  }
  // An enum lists every value the schema allows: a nullable one allows null too.
  if (nullable === true && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (example !== undefined && out.examples === undefined) out.examples = [example];
  if (isObject(out.properties)) out.properties = Object.fromEntries(Object.entries(out.properties).map(([name, property]) => [name, jsonSchemaFromGemini(property)]));
  if (isObject(out.items)) out.items = jsonSchemaFromGemini(out.items);
  if (Array.isArray(out.anyOf)) out.anyOf = out.anyOf.map(jsonSchemaFromGemini);
  return out;
}
