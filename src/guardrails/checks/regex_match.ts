/**
 * `regex_match` — passes when the text matches `pattern` (a JavaScript regular expression,
 * at most 1000 characters) with optional `flags` from `i`, `m`, `s`, `u`, `v` (`g`/`y` are
 * meaningless for a yes/no test and refused). `not: true` passes when it does not match.
 * Only the first 100,000 characters are tested, and a test is stopped after 100 ms (a
 * catastrophic pattern then fails the check rather than hanging the gateway).
 */
import { z } from "zod";
import { clip, MAX_CHECKED_CHARS } from "../limits.ts";
import { regexError, RegexTimeoutError, safeTest } from "../safe-regex.ts";
import { defineCheck } from "../types.ts";

export const MAX_PATTERN_LENGTH = 1000;

const params = z
  .strictObject({
    pattern: z.string().min(1).max(MAX_PATTERN_LENGTH),
    flags: z
      .string()
      .regex(/^[imsuv]*$/, "flags may only use i, m, s, u and v")
      .refine((flags) => new Set(flags).size === flags.length, "flags must not repeat")
      .optional(),
    not: z.boolean().optional(),
  })
  .superRefine((value, ctx) => {
    const error = regexError(value.pattern, value.flags);
    if (error) ctx.addIssue({ code: "custom", path: ["pattern"], message: `not a valid regular expression (${error})` });
  });

export const regexMatch = defineCheck({
  type: "regex_match",
  params,
  run: ({ pattern, flags, not }, ctx) => {
    let matched: boolean;
    try {
      matched = safeTest(new RegExp(pattern, flags), clip(ctx.text));
    } catch (error) {
      if (error instanceof RegexTimeoutError) {
        return { verdict: false, explanation: "The pattern took too long to evaluate and was stopped." };
      }
      throw error;
    }
    const clipped = ctx.text.length > MAX_CHECKED_CHARS ? ` (first ${MAX_CHECKED_CHARS} characters checked)` : "";
    const explanation = `The text ${matched ? "matches" : "does not match"} the pattern${clipped}.`;
    return { verdict: not ? !matched : matched, explanation, data: { matched } };
  },
});
