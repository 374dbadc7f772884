import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";

type Schema = Record<string, unknown>;
type Doc = { paths: Record<string, Record<string, Schema>>; components: { schemas: Record<string, Schema>; parameters?: Record<string, Schema> } };

/** The official OpenAI document in ../shared/reference, parsed once. */
let official: Doc | null = null;
export function openaiDocument(): Doc {
  official ??= parseYaml(readFileSync(new URL("../../../shared/reference/openai-openapi.yaml", import.meta.url), "utf8"), { maxAliasCount: -1 }) as Doc;
  return official;
}

function resolve(doc: Doc, value: unknown): Schema | null {
  let schema = value as Schema | undefined;
  for (let i = 0; schema && typeof schema.$ref === "string" && i < 20; i++) {
    const parts = (schema.$ref as string).replace(/^#\//, "").split("/");
    schema = parts.reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], doc) as Schema | undefined;
  }
  return schema ?? null;
}

/** Properties and required names of an object schema, merged over `allOf`. */
function objectShape(doc: Doc, value: unknown): { properties: Record<string, Schema>; required: Set<string> } {
  const schema = resolve(doc, value) ?? {};
  const properties: Record<string, Schema> = {};
  const required = new Set<string>();
  for (const part of [schema, ...((schema.allOf as unknown[]) ?? []).map((item) => resolve(doc, item) ?? {})]) {
    if (part !== schema && (part as Schema).allOf) {
      const nested = objectShape(doc, part);
      Object.assign(properties, nested.properties);
      nested.required.forEach((name) => required.add(name));
    }
    Object.assign(properties, (part as Schema).properties ?? {});
    for (const name of ((part as Schema).required as string[]) ?? []) required.add(name);
  }
  return { properties, required };
}

/** Every numeric or length bound of a schema (through anyOf/oneOf); a bound absent in any branch is absent. */
function bound(doc: Doc, value: unknown, key: "minimum" | "maximum" | "minLength" | "maxLength" | "minItems" | "maxItems"): number | undefined {
  const schema = resolve(doc, value);
  if (!schema) return undefined;
  const branches = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (branches) {
    const found = branches.map((branch) => bound(doc, branch, key)).filter((item) => item !== undefined);
    // Only branches of the same kind constrain; a branch without the bound lifts it.
    if (found.length < branches.filter((branch) => (resolve(doc, branch)?.type ?? "x") !== "null").length) return undefined;
    return key.startsWith("min") ? Math.min(...(found as number[])) : Math.max(...(found as number[]));
  }
  return typeof schema[key] === "number" ? (schema[key] as number) : undefined;
}

function nullable(doc: Doc, value: unknown): boolean {
  const schema = resolve(doc, value);
  if (!schema) return true;
  if (schema.nullable === true) return true;
  if (Array.isArray(schema.type) && schema.type.includes("null")) return true;
  if (schema.type === "null") return true;
  return ((schema.anyOf ?? schema.oneOf) as unknown[] | undefined)?.some((branch) => nullable(doc, branch)) ?? false;
}

const BOUNDS = ["minimum", "minLength", "minItems"] as const;
const UPPER = ["maximum", "maxLength", "maxItems"] as const;

/**
 * Where the gateway's schema refuses what OpenAI's accepts, for one operation: a field required
 * that OpenAI leaves optional, a null OpenAI allows, a lower bound above OpenAI's (or where it has
 * none), an upper bound below. Top-level body fields and query parameters are compared.
 */
export function stricterThanOpenai(ours: Doc, path: string, method: string): string[] {
  const doc = openaiDocument();
  const theirs = doc.paths[path.replace(/^\/v1/, "")]?.[method];
  const own = ours.paths[path]?.[method];
  if (!theirs || !own) return [];
  const problems: string[] = [];
  const ownBody = (own.requestBody as Schema | undefined)?.content as Record<string, Schema> | undefined;
  const theirBody = (resolve(doc, theirs.requestBody) as Schema | undefined)?.content as Record<string, Schema> | undefined;
  if (ownBody?.["application/json"] && theirBody?.["application/json"]) {
    const a = objectShape(ours, ownBody["application/json"].schema);
    const b = objectShape(doc, theirBody["application/json"].schema);
    for (const name of a.required) if (!b.required.has(name)) problems.push(`body.${name} is required; OpenAI's is optional`);
    for (const [name, schema] of Object.entries(a.properties)) {
      const other = b.properties[name];
      if (!other) continue;
      problems.push(...compare(ours, schema, doc, other, `body.${name}`));
    }
  }
  const params = (list: unknown): Record<string, Schema> =>
    Object.fromEntries(((list as unknown[]) ?? []).map((item) => item as Schema).map((item) => [item.name as string, item]));
  const ownParams = params((own.parameters as unknown[] | undefined)?.map((item) => resolve(ours, item)));
  const theirParams = params((theirs.parameters as unknown[] | undefined)?.map((item) => resolve(doc, item)));
  for (const [name, param] of Object.entries(ownParams)) {
    const other = theirParams[name];
    if (!other || param.in !== "query") continue;
    problems.push(...compare(ours, param.schema, doc, other.schema, `query.${name}`));
  }
  return problems;
}

function compare(ours: Doc, schema: unknown, doc: Doc, other: unknown, at: string): string[] {
  const problems: string[] = [];
  if (nullable(doc, other) && !nullable(ours, schema)) problems.push(`${at} refuses null; OpenAI's allows it`);
  for (const key of BOUNDS) {
    const mine = bound(ours, schema, key);
    const theirs = bound(doc, other, key);
    if (mine !== undefined && (theirs === undefined || mine > theirs)) problems.push(`${at} ${key} ${mine}; OpenAI's ${theirs ?? "none"}`);
  }
  for (const key of UPPER) {
    const mine = bound(ours, schema, key);
    const theirs = bound(doc, other, key);
    if (mine !== undefined && (theirs === undefined || mine < theirs)) problems.push(`${at} ${key} ${mine}; OpenAI's ${theirs ?? "none"}`);
  }
  return problems;
}
