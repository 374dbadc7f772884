/**
 * What the request checks generated from the document (`src/generated/request-checks.gen.ts`,
 * written by `scripts/codegen/request-checks.ts`) call at run time. A check mirrors what the
 * route's zod schema decides, value by value; it stops at its first failure and leaves it here,
 * so that a refusal is answered from where the body went wrong, never from a walk of all of it.
 */
import { z } from "@hono/zod-openapi";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "./json-depth.ts";
import { sampleOf } from "./body-sample.ts";

/** A path into a JSON value: object keys and array indices, as zod reports them. */
export type ValuePath = PropertyKey[];

/** Where a check stopped, and why. */
export interface CheckFailure {
  /** Path of the value that failed (for `required`, of the object missing the key). */
  path: ValuePath;
  /** The rule it broke, named as JSON Schema names it (`type`, `maxItems`, `required`, `anyOf`…). */
  keyword: string;
  params: Record<string, unknown>;
  /**
   * True when zod refuses the value too: the check's refusal is then the route's answer. False
   * where only zod can tell (a format, a key zod drops, a default it fills in): zod decides.
   */
  final: boolean;
}

/**
 * The failures of the check that is running, from the value where it stopped (first) up to the
 * rule that decided (last). Empty while a check passes: a failure returns at once.
 */
let failures: CheckFailure[] = [];

/** Records a failure at `path` (relative to the function that found it) and returns false. */
export function fail(path: ValuePath, keyword: string, final: boolean, params: Record<string, unknown> = {}): false {
  failures.push({ path, keyword, params, final });
  return false;
}

/** Puts `prefix` before the path of every failure recorded below a call that failed; returns false. */
export function nest(prefix: ValuePath): false {
  for (const failure of failures) failure.path = prefix.concat(failure.path);
  return false;
}

/** A check of one value, as generated: true when it passes, else false with its failures recorded. */
export type ValueCheck = (value: unknown) => boolean;

/**
 * zod's union: the first option that parses gives the value. An option the check passes is one
 * zod passes unchanged, but zod would have taken an earlier option the check refused without
 * being sure (`final` false): the union is then zod's to judge. Refused by every option for
 * sure, the union's refusal is final.
 */
export function firstOf(value: unknown, options: readonly ValueCheck[]): boolean {
  let focus: CheckFailure | undefined;
  for (const option of options) {
    if (option(value)) {
      failures.length = 0;
      return true;
    }
    focus = deeper(focus);
    const decided = failures[failures.length - 1]?.final === true;
    failures.length = 0;
    if (!decided) return unionFailure(focus, "anyOf", false, {});
  }
  return unionFailure(focus, "anyOf", true, {});
}

/**
 * json-schema-to-zod's `oneOf`: any value, refined to one that exactly one option parses (the
 * value is kept as it is). Final only when every option's verdict is zod's own.
 */
export function exactlyOne(value: unknown, options: readonly ValueCheck[]): boolean {
  let passed = 0;
  let undecided = false;
  let focus: CheckFailure | undefined;
  for (const option of options) {
    if (option(value)) {
      passed += 1;
      continue;
    }
    focus = deeper(focus);
    if (failures[failures.length - 1]?.final !== true) undecided = true;
    failures.length = 0;
  }
  if (passed === 1 && !undecided) return true;
  return unionFailure(focus, "oneOf", passed > 1 || !undecided, { passingSchemas: passed });
}

/** Of the failure kept so far and the first of the option that just failed, the one deeper in the value. */
function deeper(kept: CheckFailure | undefined): CheckFailure | undefined {
  const first = failures[0];
  if (!first) return kept;
  return kept && kept.path.length >= first.path.length ? kept : first;
}

/** A union's refusal: the deepest place an option stopped (where zod is asked to word it), then the union's own. */
function unionFailure(focus: CheckFailure | undefined, keyword: string, final: boolean, params: Record<string, unknown>): false {
  if (focus) failures.push(focus);
  failures.push({ path: [], keyword, params, final });
  return false;
}

/** Runs a generated check on one parameter's value: true when it passes (its failure, if any, dropped). */
export function passes(check: ValueCheck, value: unknown): boolean {
  if (check(value)) return true;
  failures.length = 0;
  return false;
}

/**
 * The checks of an operation's parameters, by validation target: each returns the object the
 * route's zod object would (numbers and booleans read from their text, unknown names left out),
 * or null where zod must decide (a refusal, or a value zod would fill in or change).
 */
export interface ParameterChecks {
  param?: (params: Record<string, string | string[] | undefined>) => Record<string, unknown> | null;
  query?: (query: Record<string, string | string[] | undefined>) => Record<string, unknown> | null;
  header?: (headers: Headers) => Record<string, unknown> | null;
}

/**
 * Runs a generated check on a value: null when it passes, else its failures (where it stopped
 * first, the deciding rule last). Never throws.
 */
export function runCheck(check: ValueCheck, value: unknown): CheckFailure[] | null {
  failures = [];
  if (check(value)) return null;
  const found = failures;
  failures = [];
  return found;
}

/** A JSON object (not null, not an array), as zod's objects and records take it. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * A string's length in code points, as zod measures it (a surrogate pair counts once, a lone
 * surrogate as itself); only called when the UTF-16 length leaves the answer in doubt.
 */
export function codePoints(text: string): number {
  let count = text.length;
  for (let index = 0; index < text.length - 1; index += 1) {
    if ((text.charCodeAt(index) & 0xfc00) === 0xd800 && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      count -= 1;
      index += 1;
    }
  }
  return count;
}

/** True when an object's keys number more than `limit`; stops counting past it. */
export function keysAbove(value: Record<string, unknown>, limit: number): boolean {
  let count = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    count += 1;
    if (count > limit) return true;
  }
  return false;
}

/** Whitespace at an end, or a tab or line break anywhere: zod's URL check would return another string. */
const URL_REWRITTEN = /^\s|\s$|[\t\n\r]/;

/** Distinct URLs whose verdict is remembered (a custom host is sent with request after request), and their longest. */
const URL_MEMO = { entries: 1_000, length: 2_048 };
const urlVerdicts = new Map<string, 1 | 0 | -1>();

/**
 * zod's `url()` on a string: 1 when it passes unchanged, 0 when zod refuses it too, -1 when zod
 * would trim it or drop a tab or line break (zod decides).
 */
export function urlVerdict(text: string): 1 | 0 | -1 {
  const known = urlVerdicts.get(text);
  if (known !== undefined) return known;
  const verdict = URL_REWRITTEN.test(text) ? -1 : URL.canParse(text) ? 1 : 0;
  if (urlVerdicts.size < URL_MEMO.entries && text.length <= URL_MEMO.length) urlVerdicts.set(text, verdict);
  return verdict;
}

/**
 * A request body's check, generated from the document (`src/generated/request-checks.gen.ts`):
 * null for a value the body's zod schema accepts unchanged, else the failures where it stopped
 * (the value first, the deciding rule last).
 */
export type BodyCheck = (value: unknown) => CheckFailure[] | null;

/** How many failures a refusal names: the validation hook answers with the first. */
export const NAMED_FAILURES = 5;

/**
 * The zod schema a route validates its JSON body with: a body nested deeper than
 * `MAX_JSON_DEPTH` is refused; a body the check accepts is returned as sent (no parse, no copy).
 * A refused body is never given whole to zod, whose work grows with every bad element: zod
 * parses a bounded sample that holds the element where the check stopped (`body-sample.ts`)
 * and names the first failures the body has. When the sample shows none, a final failure (one
 * zod's verdict shares) is the answer; only a failure that is not final (a value zod changes or
 * judges alone) leaves the whole body to zod, whose output or issues are the answer. Built from
 * public zod API only.
 */
export function compiledBody<S extends z.ZodType>(schema: S, check: BodyCheck) {
  return z.unknown().transform((value, ctx): z.output<S> => {
    if (nestedDeeperThan(value)) {
      ctx.addIssue({ code: "custom", message: `the JSON body is nested deeper than ${MAX_JSON_DEPTH} levels` });
      return z.NEVER;
    }
    const failures = check(value);
    if (failures === null) return value as z.output<S>;
    const sample = sampleOf(value, failures[0]?.path ?? []);
    const probe = schema.safeParse(sample.value);
    if (!sample.cut) {
      if (probe.success) return probe.data;
      return refuse(ctx, probe.error.issues);
    }
    const named = probe.success ? [] : sample.trusted(probe.error.issues);
    if (named.length > 0) return refuse(ctx, named);
    const decisive = failures[failures.length - 1];
    if (decisive?.final) return refuse(ctx, [issueOf(decisive)]);
    const whole = schema.safeParse(value);
    if (whole.success) return whole.data;
    return refuse(ctx, whole.error.issues);
  });
}

function refuse(ctx: z.RefinementCtx, issues: ReadonlyArray<z.core.$ZodIssue>): never {
  for (const issue of issues.slice(0, NAMED_FAILURES)) ctx.addIssue({ ...issue });
  return z.NEVER as never;
}

/** A check's failure in zod's words, for a refusal the sample could not show (a count past its limit). */
function issueOf(failure: CheckFailure): z.core.$ZodIssue {
  const path = [...failure.path];
  const limit = failure.params.limit;
  const message = WORDS[failure.keyword]?.(limit) ?? "Invalid input";
  if (failure.keyword === "required" && typeof failure.params.missingProperty === "string") path.push(failure.params.missingProperty);
  return { code: "custom", path, message, input: undefined } as z.core.$ZodIssue;
}

const WORDS: Record<string, (limit: unknown) => string> = {
  maxItems: (limit) => `Too big: expected array to have <=${String(limit)} items`,
  minItems: (limit) => `Too small: expected array to have >=${String(limit)} items`,
  maxProperties: (limit) => `Too big: expected object to have <=${String(limit)} properties`,
  minProperties: (limit) => `Too small: expected object to have >=${String(limit)} properties`,
  required: () => "Invalid input: expected a value, received undefined",
};
