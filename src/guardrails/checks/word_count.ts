/**
 * `word_count` — the number of words is within [min, max] (inclusive; at least one bound).
 * A word is a whitespace-separated token holding at least one letter or digit, so stray
 * punctuation ("—", "...") does not count. `not: true` requires a count outside the range.
 */
import { defineCheck } from "../types.ts";
import { rangeOutcome, rangeParams } from "../range.ts";

const HAS_ALNUM = /[\p{L}\p{N}]/u;

export function countWords(text: string): number {
  let count = 0;
  for (const token of text.split(/\s+/)) if (HAS_ALNUM.test(token)) count++;
  return count;
}

export const wordCount = defineCheck({
  type: "word_count",
  params: rangeParams,
  run: (params, ctx) => rangeOutcome(countWords(ctx.text), params, "word"),
});
