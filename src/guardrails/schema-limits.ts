/**
 * What a `json_schema` check's schema may be, beyond compiling: nesting depth, and no `$ref`
 * loop that never descends into the value. Ajv compiles `{"$ref": "#"}` without complaint, and
 * its validator then calls itself until the stack overflows, on every input; such a schema is
 * refused when the guardrail is saved.
 */
import { nestedDeeperThan } from "../validation/json-depth.ts";

/** Levels of JSON nesting (objects and arrays) a schema may use: 32 levels of `properties`. */
export const MAX_SCHEMA_DEPTH = 64;

/**
 * Objects (subschemas, `properties` maps, …) a schema may hold. Ajv's compile time grows faster
 * than the schema (an `anyOf` of 1,000 branches takes over half a second), and a schema compiles
 * again whenever it leaves the compiled cache.
 */
export const MAX_SCHEMA_OBJECTS = 500;
/** Items of one `allOf`, `anyOf`, `oneOf` or `enum` list. */
export const MAX_SCHEMA_BRANCHES = 100;

/** Keywords that apply a subschema to the same value, not to a part of it. */
const IN_PLACE_ONE = ["not", "if", "then", "else"] as const;
const IN_PLACE_MANY = ["allOf", "anyOf", "oneOf"] as const;
const IN_PLACE_MAP = ["dependencies", "dependentSchemas"] as const;

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value);

/** Every object of the schema by its JSON pointer (`""` is the root). Iterative. */
function pointers(schema: Node): Map<string, Node> {
  const byPointer = new Map<string, Node>();
  const pending: Array<[unknown, string]> = [[schema, ""]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, pointer] = next;
    if (value === null || typeof value !== "object") continue;
    if (isNode(value)) byPointer.set(pointer, value);
    const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
    for (const [key, child] of entries) pending.push([child, `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`]);
  }
  return byPointer;
}

/** The local pointer a `$ref` names (`#`, `#/definitions/a`), or null for any other reference. */
function localPointer(ref: string): string | null {
  if (!ref.startsWith("#")) return null;
  try {
    return decodeURIComponent(ref.slice(1));
  } catch {
    return null;
  }
}

/** The subschemas applied to the same value as `node`. */
function inPlace(node: Node, byPointer: Map<string, Node>): Node[] {
  const next: Node[] = [];
  if (typeof node.$ref === "string") {
    const pointer = localPointer(node.$ref);
    const target = pointer === null ? undefined : byPointer.get(pointer);
    if (target) next.push(target);
  }
  for (const key of IN_PLACE_ONE) if (isNode(node[key])) next.push(node[key]);
  for (const key of IN_PLACE_MANY) {
    const list = node[key];
    if (Array.isArray(list)) next.push(...list.filter(isNode));
  }
  for (const key of IN_PLACE_MAP) {
    const map = node[key];
    if (isNode(map)) next.push(...Object.values(map).filter(isNode));
  }
  return next;
}

/**
 * Whether a chain of `$ref`, `allOf`/`anyOf`/`oneOf`, `not`, `if`/`then`/`else` or
 * `dependencies` leads from a subschema back to itself without descending into the value
 * (`properties`, `items` and the like descend, so recursive schemas for trees stay allowed).
 * Iterative depth-first search. Never throws.
 */
function loopsInPlace(byPointer: Map<string, Node>): boolean {
  const state = new Map<Node, "open" | "done">();
  for (const start of byPointer.values()) {
    if (state.has(start)) continue;
    const stack: Array<{ node: Node; next: Node[]; at: number }> = [{ node: start, next: inPlace(start, byPointer), at: 0 }];
    state.set(start, "open");
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const child = top.next[top.at++];
      if (child === undefined) {
        state.set(top.node, "done");
        stack.pop();
        continue;
      }
      const seen = state.get(child);
      if (seen === "open") return true;
      if (seen === "done") continue;
      state.set(child, "open");
      stack.push({ node: child, next: inPlace(child, byPointer), at: 0 });
    }
  }
  return false;
}

/** Why the schema is refused before compiling, or null. Never throws. */
export function schemaLimitProblem(schema: Node): string | null {
  if (nestedDeeperThan(schema, MAX_SCHEMA_DEPTH)) return `the schema nests deeper than ${MAX_SCHEMA_DEPTH} levels`;
  const byPointer = pointers(schema);
  if (byPointer.size > MAX_SCHEMA_OBJECTS) return `the schema holds more than ${MAX_SCHEMA_OBJECTS} objects`;
  for (const node of byPointer.values()) {
    for (const key of [...IN_PLACE_MANY, "enum"]) {
      const list = node[key];
      if (Array.isArray(list) && list.length > MAX_SCHEMA_BRANCHES) return `${key} lists more than ${MAX_SCHEMA_BRANCHES} items`;
    }
  }
  if (loopsInPlace(byPointer)) return "a $ref (or allOf, anyOf, oneOf, not, if/then/else) leads back to itself without descending into the value, so validating would never end";
  return null;
}
