/**
 * Compiles the JSON Schemas of `json_schema` checks with one shared Ajv (draft-07 plus
 * ajv-formats formats). Every `pattern` and `patternProperties` key of a schema compiles on
 * RE2 (`./linear-regex.ts`) when the schema does, so a pattern RE2 refuses makes the schema
 * unusable at save time and no pattern can backtrack at run time. Compiled validators are kept
 * in a small bounded cache keyed by the schema's JSON, and dropped from Ajv's own cache so it
 * cannot grow. Depth and `$ref` loops are checked before compiling (`./schema-limits.ts`).
 */
import { createRequire } from "node:module";
import type { Ajv, ErrorObject, Options, ValidateFunction } from "ajv";
import { compilePattern } from "./linear-regex.ts";
import { schemaLimitProblem } from "./schema-limits.ts";

/** Serialized schemas longer than this are refused. */
export const MAX_SCHEMA_CHARS = 100_000;
const MAX_CACHED = 200;

type RegExpEngine = NonNullable<NonNullable<Options["code"]>["regExp"]>;

/**
 * The engine Ajv builds schema patterns with. Ajv passes the flag `u` (RE2 always matches by
 * code point) and keys its pattern cache by `toString()`. Throwing makes `compile` fail with
 * this message.
 */
const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    const compiled = compilePattern(pattern, flags);
    if (!compiled.ok) throw new Error(`the pattern ${JSON.stringify(pattern.slice(0, 100))} cannot be used: ${compiled.message}`);
    const { regex } = compiled;
    return { test: (text: string) => regex.test(text), toString: () => `${flags}/${pattern}` };
  },
  { code: "linearRegExp" },
);

// Loaded at the first compile: Ajv costs the process about 10 MB of memory, and most
// gateways never save a json_schema guardrail. Both packages are CommonJS, so `require` loads
// them synchronously on Bun and Node alike.
let shared: Ajv | null = null;
function ajv(): Ajv {
  if (shared) return shared;
  const require = createRequire(import.meta.url);
  const { Ajv: AjvClass } = require("ajv") as typeof import("ajv");
  const addFormats = require("ajv-formats") as { default: (instance: Ajv) => void };
  // `allowMatchingProperties` keeps Ajv from testing `patternProperties` keys against
  // `properties` names with a native RegExp while compiling.
  shared = new AjvClass({ strict: false, allErrors: true, allowMatchingProperties: true, code: { regExp: linearRegExp } });
  addFormats.default(shared);
  return shared;
}

const cache = new Map<string, ValidateFunction>();

export type Compiled = { ok: true; validate: ValidateFunction } | { ok: false; message: string };

/** Compiles a schema; the message says why it is not a usable schema. Never throws. */
export function compileSchema(schema: Record<string, unknown>): Compiled {
  let key: string;
  try {
    key = JSON.stringify(schema);
  } catch {
    return { ok: false, message: "the schema is not serializable JSON" };
  }
  if (key.length > MAX_SCHEMA_CHARS) return { ok: false, message: `the schema is longer than ${MAX_SCHEMA_CHARS} characters` };
  const cached = cache.get(key);
  if (cached) return { ok: true, validate: cached };
  const copy = JSON.parse(key) as Record<string, unknown>;
  const quadratic = quadraticKeyword(copy) ?? schemaLimitProblem(copy);
  if (quadratic) return { ok: false, message: quadratic };
  try {
    const validate = ajv().compile(copy);
    if ((validate as { $async?: unknown }).$async) return { ok: false, message: "asynchronous schemas ($async) are not supported" };
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
    cache.set(key, validate);
    return { ok: true, validate };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : "the schema does not compile" };
  } finally {
    ajv().removeSchema(copy);
  }
}

const SCALAR_TYPES = new Set(["string", "number", "integer", "boolean", "null"]);

/**
 * Why a schema would cost time growing with the square of its input, or null. Ajv checks
 * `uniqueItems` with one pass over the array only when the same schema's `items` declares scalar
 * types; otherwise it compares every pair of items, and a long array stalls the gateway.
 */
function quadraticKeyword(schema: unknown): string | null {
  const pending: unknown[] = [schema];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (node === null || typeof node !== "object") continue;
    const values = Array.isArray(node) ? node : Object.values(node);
    pending.push(...values);
    if (Array.isArray(node) || (node as { uniqueItems?: unknown }).uniqueItems !== true) continue;
    const items = (node as { items?: unknown }).items;
    const type = items !== null && typeof items === "object" ? (items as { type?: unknown }).type : undefined;
    const types = Array.isArray(type) ? type : [type];
    if (types.length === 0 || !types.every((item) => SCALAR_TYPES.has(item as string))) {
      return "uniqueItems is only supported beside an items schema of scalar types (string, number, integer, boolean, null): comparing objects or arrays pairwise costs the square of the array's length";
    }
  }
  return null;
}

/** Ajv errors as `{ path, message }` (no instance values are echoed). */
export function schemaErrors(errors: readonly ErrorObject[] | null | undefined, max = 5): { path: string; message: string }[] {
  return (errors ?? []).slice(0, max).map((error) => ({ path: error.instancePath || "/", message: error.message ?? "is invalid" }));
}
