import { createRequire } from "node:module";
import { z } from "@hono/zod-openapi";
import type { Ajv2020 } from "ajv/dist/2020.js";

/** A compiled check that only answers "zod would accept this value and return it unchanged". */
export type JsonPrecheck = (value: unknown) => boolean;

let shared: Ajv2020 | null = null;
/** Loaded at the first compile (Ajv is CommonJS: `require` is synchronous on Bun and Node). */
function ajv(): Ajv2020 {
  if (shared) return shared;
  const { Ajv2020: AjvClass } = createRequire(import.meta.url)("ajv/dist/2020") as typeof import("ajv/dist/2020.js");
  // Strict: a keyword or format Ajv does not know makes compilation throw, and that schema
  // keeps zod alone. Both count string lengths in code points (the tests hold them to it).
  shared = new AjvClass({ strict: true, allErrors: false, logger: false });
  return shared;
}

/** Node kinds whose JSON Schema says exactly what zod accepts and whose output is the input. */
const PLAIN_TYPES = new Set(["string", "number", "boolean", "null", "any", "unknown", "never", "literal", "enum"]);
const WRAPPER_TYPES = new Set(["optional", "nullable", "default"]);
/** Checks with an exact JSON Schema twin. Refinements, formats, regexes and `overwrite` (trim…) have none. */
const PLAIN_CHECKS = new Set([
  "less_than", "greater_than", "number_format", "min_length", "max_length", "length_equals", "min_size", "max_size", "size_equals",
]);

interface ZodNode {
  _zod: { def: Record<string, unknown> & { type: string; checks?: Array<{ _zod: { def: { check: string } } }> } };
}

/**
 * A fast Ajv check compiled from the schema's JSON Schema, or null when the schema holds
 * something JSON Schema cannot say exactly (refinements, transforms, pipes, formats, enum-keyed
 * records…). Where the check passes, `safeParse` would succeed with a deep copy of the value,
 * so the value itself can stand in for zod's output; where it fails, zod must decide and explain.
 */
export function compileJsonPrecheck(schema: z.ZodType): JsonPrecheck | null {
  if (!isPlain(schema as unknown as ZodNode, new Set())) return null;
  try {
    return ajv().compile(z.toJSONSchema(schema, { io: "output", unrepresentable: "throw" })) as JsonPrecheck;
  } catch {
    return null;
  }
}

function isPlain(node: ZodNode, seen: Set<ZodNode>): boolean {
  // A node met twice (recursion, or one schema reused in two places) stays with zod: cheap to
  // refuse, and it keeps the walk finite.
  if (seen.has(node)) return false;
  seen.add(node);
  const { def } = node._zod;
  if (!(def.checks ?? []).every((check) => PLAIN_CHECKS.has(check._zod.def.check))) return false;
  const child = (key: string): boolean => def[key] === undefined || isPlain(def[key] as ZodNode, seen);
  if (PLAIN_TYPES.has(def.type)) return true;
  if (WRAPPER_TYPES.has(def.type)) return child("innerType");
  if (def.type === "array") return child("element");
  if (def.type === "union") return (def.options as ZodNode[]).every((option) => isPlain(option, seen));
  if (def.type === "object") return Object.values(def.shape as Record<string, ZodNode>).every((field) => isPlain(field, seen)) && child("catchall");
  // An enum- or literal-keyed record requires every key, which JSON Schema cannot say here.
  if (def.type === "record") return (def.keyType as ZodNode)._zod.def.type === "string" && child("keyType") && child("valueType");
  return false;
}
