import { z } from "@hono/zod-openapi";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "./json-depth.ts";
import { sampleOf, type ValuePath } from "./body-sample.ts";

/** The first failure a compiled check met, as Ajv reports it (`instancePath` a JSON pointer). */
export interface CheckFailure {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
}

/**
 * A compiled check of a request body: true only for a value the body's zod schema accepts
 * unchanged. Ajv's standalone checks stop at the first failure and leave it in `errors` (the
 * failures of a union's options first, the union's own last).
 */
export type BodyCheck = ((value: unknown) => boolean) & { errors?: CheckFailure[] | null };

export interface CompiledBodyOptions {
  /** The check refuses only what the zod schema refuses: its refusal is final. */
  exact: boolean;
}

/** How many failures a refusal names: the validation hook answers with the first. */
export const NAMED_FAILURES = 5;

/**
 * The zod schema a route validates its JSON body with: a body nested deeper than
 * `MAX_JSON_DEPTH` is refused; a body the compiled check accepts is returned as sent (no parse,
 * no copy). A refused body is never given whole to zod, whose work grows with every bad
 * element: zod parses a bounded sample that holds the element where the check stopped
 * (`body-sample.ts`) and names the first failures the body has. When the sample shows none,
 * an exact check's own failure is the answer; only an inexact check (a value zod strips, fills
 * in or judges itself) leaves the whole body to zod, whose output or issues are the answer.
 * Built from public zod API only.
 */
export function compiledBody<S extends z.ZodType>(schema: S, check: BodyCheck, options: CompiledBodyOptions) {
  return z.unknown().transform((value, ctx): z.output<S> => {
    if (nestedDeeperThan(value)) {
      ctx.addIssue({ code: "custom", message: `the JSON body is nested deeper than ${MAX_JSON_DEPTH} levels` });
      return z.NEVER;
    }
    if (check(value)) return value as z.output<S>;
    const failures = check.errors ?? [];
    const sample = sampleOf(value, pointerPath(failures[0]?.instancePath ?? ""));
    const probe = schema.safeParse(sample.value);
    if (!sample.cut) {
      if (probe.success) return probe.data;
      return refuse(ctx, probe.error.issues);
    }
    const named = probe.success ? [] : sample.trusted(probe.error.issues);
    if (named.length > 0) return refuse(ctx, named);
    const decisive = failures[failures.length - 1];
    if (options.exact && decisive) return refuse(ctx, [issueOf(decisive)]);
    const whole = schema.safeParse(value);
    if (whole.success) return whole.data;
    return refuse(ctx, whole.error.issues);
  });
}

function refuse(ctx: z.RefinementCtx, issues: ReadonlyArray<z.core.$ZodIssue>): never {
  for (const issue of issues.slice(0, NAMED_FAILURES)) ctx.addIssue({ ...issue });
  return z.NEVER as never;
}

/** A JSON pointer's segments (`/messages/3` → `["messages", "3"]`). */
function pointerPath(pointer: string): ValuePath {
  if (pointer === "") return [];
  return pointer.slice(1).split("/").map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** A compiled check's failure in zod's words, for a refusal the sample could not show (a count past its limit). */
function issueOf(failure: CheckFailure): z.core.$ZodIssue {
  const path = pointerPath(failure.instancePath).map((segment) => (/^(0|[1-9]\d*)$/.test(segment as string) ? Number(segment) : segment));
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
