import { fail, GatewayError, ok, type Result } from "../errors.ts";
import { compilePattern, type LinearRegex } from "../guardrails/linear-regex.ts";

/**
 * The queries of a `conditional` strategy: `{"metadata.plan": "paid"}`,
 * `{"params.max_tokens": {"$gt": 1000}}`, `{"$or": [{...}, {...}]}`. A query is compiled once,
 * when its config is parsed, so a bad one is a 400 at save time and never fails a request.
 */

/** What a query can look at. */
export interface RouteFacts {
  metadata: Readonly<Record<string, string>>;
  /** The request's JSON body (empty for other bodies). */
  params: Readonly<Record<string, unknown>>;
  /** The operation id, such as `createChatCompletion`. */
  route: string;
}

export type CompiledQuery = (facts: RouteFacts) => boolean;

const COMPARISONS = ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$regex"] as const;
type Comparison = (typeof COMPARISONS)[number];
const MAX_DEPTH = 8;
/** The most of a field a `$regex` reads: its first 4,096 characters. */
export const MAX_REGEX_TEXT = 4096;
const MAX_LIST = 100;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Compiles a query; the error names `param` and the part at fault. Never throws. */
export function compileQuery(query: Record<string, unknown>, param: string, depth = 0): Result<CompiledQuery, GatewayError> {
  if (depth > MAX_DEPTH) return fail(queryError(param, `is nested deeper than ${MAX_DEPTH} levels`));
  const parts: CompiledQuery[] = [];
  for (const [key, value] of Object.entries(query)) {
    const here = `${param}.${key}`;
    if (key === "$and" || key === "$or") {
      if (!Array.isArray(value) || value.length === 0 || value.length > MAX_LIST || !value.every(isObject)) {
        return fail(queryError(here, `must be a list of 1 to ${MAX_LIST} queries`));
      }
      const compiled: CompiledQuery[] = [];
      for (const [index, item] of value.entries()) {
        const one = compileQuery(item, `${here}.${index}`, depth + 1);
        if (!one.ok) return one;
        compiled.push(one.value);
      }
      parts.push(key === "$and" ? (facts) => compiled.every((test) => test(facts)) : (facts) => compiled.some((test) => test(facts)));
      continue;
    }
    if (key.startsWith("$")) return fail(queryError(here, "is not an operator: use $and or $or, or a field such as metadata.<key>"));
    const read = fieldReader(key);
    if (!read) return fail(queryError(here, "names no field: use metadata.<key>, params.<field> or route"));
    const test = compileComparisons(value, here);
    if (!test.ok) return test;
    parts.push((facts) => test.value(read(facts)));
  }
  return ok((facts) => parts.every((test) => test(facts)));
}

function queryError(param: string, problem: string): GatewayError {
  return new GatewayError("invalid_request", `${param} ${problem}.`, { param });
}

function fieldReader(field: string): ((facts: RouteFacts) => unknown) | null {
  if (field === "route") return (facts) => facts.route;
  const [root, ...path] = field.split(".");
  if (path.length === 0 || path.some((part) => part === "")) return null;
  if (root === "metadata") {
    const key = path.join(".");
    return (facts) => (Object.hasOwn(facts.metadata, key) ? facts.metadata[key] : undefined);
  }
  if (root !== "params") return null;
  return (facts) => {
    let value: unknown = facts.params;
    for (const part of path) {
      // A number reads a list's item (`params.messages.0.role`); anything else an object's own field.
      if (Array.isArray(value) && /^(0|[1-9]\d{0,5})$/.test(part)) value = value[Number(part)];
      else if (isObject(value) && Object.hasOwn(value, part)) value = value[part];
      else return undefined;
    }
    return value;
  };
}

/** A field's test: a plain value is `$eq`; an object of operators must all hold. */
function compileComparisons(condition: unknown, param: string): Result<(value: unknown) => boolean, GatewayError> {
  if (!isObject(condition) || !Object.keys(condition).some((key) => key.startsWith("$"))) {
    return ok((value) => same(value, condition));
  }
  const tests: Array<(value: unknown) => boolean> = [];
  for (const [operator, operand] of Object.entries(condition)) {
    if (!(COMPARISONS as readonly string[]).includes(operator)) return fail(queryError(`${param}.${operator}`, `is not one of ${COMPARISONS.join(" ")}`));
    const test = comparison(operator as Comparison, operand, `${param}.${operator}`);
    if (!test.ok) return test;
    tests.push(test.value);
  }
  return ok((value) => tests.every((test) => test(value)));
}

function comparison(operator: Comparison, operand: unknown, param: string): Result<(value: unknown) => boolean, GatewayError> {
  switch (operator) {
    case "$eq":
      return ok((value) => same(value, operand));
    case "$ne":
      return ok((value) => !same(value, operand));
    case "$in":
    case "$nin": {
      if (!Array.isArray(operand) || operand.length > MAX_LIST) return fail(queryError(param, `must be a list of at most ${MAX_LIST} values`));
      const inList = (value: unknown): boolean => operand.some((item) => same(value, item));
      return ok(operator === "$in" ? inList : (value) => !inList(value));
    }
    case "$regex": {
      if (typeof operand !== "string") return fail(queryError(param, "must be a pattern (RE2 syntax)"));
      const compiled = compilePattern(operand);
      if (!compiled.ok) return fail(queryError(param, `is refused: ${compiled.message}`));
      const regex: LinearRegex = compiled.regex;
      // Linear time, and bounded text: many patterns over a huge field cannot hold the event loop.
      return ok((value) => typeof value === "string" && regex.test(value.length > MAX_REGEX_TEXT ? value.slice(0, MAX_REGEX_TEXT) : value));
    }
    default: {
      if (typeof operand !== "number" && typeof operand !== "string") return fail(queryError(param, "must be a number or a string"));
      return ok((value) => ordered(operator, value, operand));
    }
  }
}

/** `$gt` and the like compare numbers with numbers and strings with strings; anything else is false. */
function ordered(operator: "$gt" | "$gte" | "$lt" | "$lte", value: unknown, operand: number | string): boolean {
  if (typeof value !== typeof operand) return false;
  const a = value as number | string;
  if (operator === "$gt") return a > operand;
  if (operator === "$gte") return a >= operand;
  if (operator === "$lt") return a < operand;
  return a <= operand;
}

/**
 * Whether the request's `value` equals the config's `operand` (JSON values; object key order
 * does not matter). The walk follows the operand and stops at the first difference, so one
 * comparison costs at most the operand's size, never the value's: a query listing many objects
 * (`{"$in": [[], [], …]}`) against a large body field stays cheap. Key counts of the request's
 * objects are counted once each (`keyCounts`, per object, so per request).
 */
function same(value: unknown, operand: unknown): boolean {
  if (value === operand) return true;
  if (typeof value !== "object" || typeof operand !== "object" || value === null || operand === null) return false;
  if (Array.isArray(operand)) {
    return Array.isArray(value) && value.length === operand.length && operand.every((item, index) => same(value[index], item));
  }
  if (Array.isArray(value)) return false;
  const keys = Object.keys(operand);
  if (keyCount(value) !== keys.length) return false;
  const record = value as Record<string, unknown>;
  return keys.every((key) => Object.hasOwn(record, key) && same(record[key], (operand as Record<string, unknown>)[key]));
}

const keyCounts = new WeakMap<object, number>();

function keyCount(value: object): number {
  let count = keyCounts.get(value);
  if (count === undefined) {
    count = Object.keys(value).length;
    keyCounts.set(value, count);
  }
  return count;
}
