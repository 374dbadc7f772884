import { z } from "@hono/zod-openapi";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "./json-depth.ts";
import { sampleOf } from "./body-sample.ts";
import type { CheckFailure } from "./check-runtime.ts";

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
