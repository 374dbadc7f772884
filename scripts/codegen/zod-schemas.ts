import { jsonSchemaToZod } from "json-schema-to-zod";
import { refName, schemaConst, type JsonSchema, type OpenApiDocument } from "./document.ts";

/** Converts one JSON Schema to zod source; `$ref`s become references to the generated consts. */
export function zodSource(schema: JsonSchema): string {
  return jsonSchemaToZod(schema, {
    module: "none",
    parserOverride: (node) => {
      const ref = (node as JsonSchema).$ref;
      if (typeof ref === "string") return schemaConst(refName(ref));
      // `X or null` as `X.nullable()`, not a union: errors inside X then name their own field.
      const nullable = nullableOf(node as JsonSchema);
      if (nullable) return `${zodSource(nullable)}.nullable()`;
      return propertyCountChecked(node as JsonSchema);
    },
  });
}

/**
 * An object schema with `maxProperties`, which json-schema-to-zod drops: the same schema with a
 * check of the count added, so zod refuses what the document and the compiled check refuse.
 * (`minProperties` stays unchecked by zod, as routes answer an empty update themselves; the
 * compiled check leaves such a body to zod.) Undefined for any other schema.
 */
function propertyCountChecked(schema: JsonSchema): string | undefined {
  const { maxProperties, ...rest } = schema;
  if (typeof maxProperties !== "number") return undefined;
  const message = JSON.stringify(`Too big: expected object to have <=${maxProperties} properties`);
  const check = `if (Object.keys(value).length > ${maxProperties}) ctx.addIssue({ code: "too_big", origin: "object", maximum: ${maxProperties}, inclusive: true, message: ${message} });`;
  return `${zodSource(rest)}.superRefine((value, ctx) => { if (value !== null && typeof value === "object" && !Array.isArray(value)) ${check} })`;
}

function nullableOf(schema: JsonSchema): JsonSchema | null {
  const options = schema.anyOf;
  if (!Array.isArray(options) || options.length !== 2 || Object.keys(schema).length !== 1) return null;
  const isNull = (option: unknown) => (option as JsonSchema).type === "null" && Object.keys(option as object).length === 1;
  const other = options.find((option) => !isNull(option));
  return options.some(isNull) && other ? (other as JsonSchema) : null;
}

function collectRefs(value: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const item of value) collectRefs(item, into);
  else if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (key === "$ref" && typeof item === "string") into.add(refName(item));
      else collectRefs(item, into);
    }
  }
  return into;
}

/** Component names ordered so each schema comes after the ones it references. */
export function topologicalOrder(schemas: Record<string, JsonSchema>): string[] {
  const ordered: string[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (name: string): void => {
    if (state.get(name) === "done") return;
    if (state.get(name) === "visiting") throw new Error(`Cyclic schema reference through ${name}`);
    const schema = schemas[name];
    if (!schema) throw new Error(`Unknown schema ${name}`);
    state.set(name, "visiting");
    for (const dependency of [...collectRefs(schema, new Set())].sort()) visit(dependency);
    state.set(name, "done");
    ordered.push(name);
  };
  for (const name of Object.keys(schemas).sort()) visit(name);
  return ordered;
}

/**
 * Renders `src/generated/schemas.gen.ts`: one exported zod schema and type per component schema.
 * Each is built on its first use (`z.lazy`): a process keeps every schema instance it builds,
 * and most of these describe answers, which nothing parses at run time.
 */
export function renderZodSchemas(document: OpenApiDocument): string {
  const lines = ['import { z } from "@hono/zod-openapi";', ""];
  for (const name of topologicalOrder(document.components.schemas)) {
    const schema = document.components.schemas[name] as JsonSchema;
    lines.push(`export const ${schemaConst(name)} = z.lazy(() => ${zodSource(schema)}.openapi(${JSON.stringify(name)}));`);
    lines.push(`export type ${name} = z.infer<typeof ${schemaConst(name)}>;`, "");
  }
  return lines.join("\n");
}
