/**
 * `sentence_count` — the number of sentences is within [min, max] (inclusive; at least one bound).
 * A sentence ends at `.`, `!`, `?` or `…` followed by whitespace or the end of the text; a final
 * fragment without an end mark counts too, and pieces without any letter or digit do not. It is a
 * heuristic: abbreviations such as "Mr." end a sentence. `not: true` requires a count outside the range.
 */
import { defineCheck } from "../types.ts";
import { rangeOutcome, rangeParams } from "../range.ts";

const HAS_ALNUM = /[\p{L}\p{N}]/u;
const SENTENCE_END = /(?<![.!?…])[.!?…]+["'”’)\]]*(?=\s|$)/u;

export function countSentences(text: string): number {
  let count = 0;
  for (const piece of text.split(new RegExp(SENTENCE_END.source, "gu"))) if (HAS_ALNUM.test(piece)) count++;
  return count;
}

export const sentenceCount = defineCheck({
  type: "sentence_count",
  params: rangeParams,
  run: (params, ctx) => rangeOutcome(countSentences(ctx.text), params, "sentence"),
});
