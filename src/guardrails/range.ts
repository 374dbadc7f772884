import { z } from "zod";
import type { CheckOutcome } from "./types.ts";
import { plural } from "./limits.ts";

/** Params of the counting checks: an inclusive `min` and/or `max` (at least one), and `not` to require a count outside. */
export const rangeParams = z
  .strictObject({
    min: z.int().min(0).optional(),
    max: z.int().min(0).optional(),
    not: z.boolean().optional(),
  })
  .superRefine((params, ctx) => {
    if (params.min === undefined && params.max === undefined) {
      ctx.addIssue({ code: "custom", path: ["min"], message: "give min, max or both" });
    } else if (params.min !== undefined && params.max !== undefined && params.min > params.max) {
      ctx.addIssue({ code: "custom", path: ["max"], message: "max must be at least min" });
    }
  });
export type RangeParams = z.infer<typeof rangeParams>;

function describeRange({ min, max }: RangeParams, noun: string): string {
  if (min !== undefined && max !== undefined) return `between ${min} and ${max} ${noun}s`;
  if (min !== undefined) return `at least ${plural(min, noun)}`;
  return `at most ${plural(max ?? 0, noun)}`;
}

/** The outcome of a count against a range; `not` passes when the count is outside it. */
export function rangeOutcome(count: number, params: RangeParams, noun: string): CheckOutcome {
  const inside = (params.min === undefined || count >= params.min) && (params.max === undefined || count <= params.max);
  const verdict = params.not ? !inside : inside;
  const range = describeRange(params, noun);
  const explanation = params.not
    ? `The text has ${plural(count, noun)}, ${inside ? "inside" : "outside"} the excluded range (${range}).`
    : `The text has ${plural(count, noun)}; ${inside ? "within" : "outside"} the allowed range (${range}).`;
  return {
    verdict,
    explanation,
    data: { count },
  };
}
