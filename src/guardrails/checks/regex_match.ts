/**
 * `regex_match` — passes when the text matches `pattern` (RE2 syntax, at most 1000 characters,
 * see `../linear-regex.ts`) with optional `flags` from `i`, `m`, `s`, `u`. `not: true` passes
 * when it does not match. Only the first 100,000 characters are tested. Matching takes time
 * linear in the text, so no pattern can stall the gateway; a pattern RE2 cannot compile
 * (backreferences, lookaround) is refused when the guardrail is saved.
 */
import { z } from "zod";
import { clip, MAX_CHECKED_CHARS } from "../limits.ts";
import { compilePattern, type LinearRegex, MAX_PATTERN_CHARS, PATTERN_FLAGS } from "../linear-regex.ts";
import { defineCheck } from "../types.ts";

export const MAX_PATTERN_LENGTH = MAX_PATTERN_CHARS;

const params = z
  .strictObject({
    pattern: z.string().min(1).max(MAX_PATTERN_LENGTH),
    flags: z
      .string()
      .regex(PATTERN_FLAGS, "flags may only use i, m, s and u")
      .refine((flags) => new Set(flags).size === flags.length, "flags must not repeat")
      .optional(),
    not: z.boolean().optional(),
  })
  .superRefine((value, ctx) => {
    const compiled = compilePattern(value.pattern, value.flags);
    if (!compiled.ok) ctx.addIssue({ code: "custom", path: ["pattern"], message: `regex_match cannot use this pattern: ${compiled.message}` });
  });

type Params = z.output<typeof params>;

/** Compiled once per params object: the runner keeps one parsed params object per stored check. */
const compiledByParams = new WeakMap<Params, LinearRegex>();

function regexFor(value: Params): LinearRegex {
  const cached = compiledByParams.get(value);
  if (cached) return cached;
  const compiled = compilePattern(value.pattern, value.flags);
  // Params reach `run` only after parsing, which compiled the same pattern.
  if (!compiled.ok) throw new Error(compiled.message);
  compiledByParams.set(value, compiled.regex);
  return compiled.regex;
}

export const regexMatch = defineCheck({
  type: "regex_match",
  params,
  run: (value, ctx) => {
    const matched = regexFor(value).test(clip(ctx.text));
    const clipped = ctx.text.length > MAX_CHECKED_CHARS ? ` (first ${MAX_CHECKED_CHARS} characters checked)` : "";
    const explanation = `The text ${matched ? "matches" : "does not match"} the pattern${clipped}.`;
    return { verdict: value.not ? !matched : matched, explanation, data: { matched } };
  },
});
