/**
 * `character_count` — the number of characters is within [min, max] (inclusive; at least one bound).
 * Characters are Unicode code points (an emoji is one, not two UTF-16 units); whitespace counts.
 * `not: true` requires a count outside the range.
 */
import { defineCheck } from "../types.ts";
import { rangeOutcome, rangeParams } from "../range.ts";

export function countCharacters(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

export const characterCount = defineCheck({
  type: "character_count",
  params: rangeParams,
  run: (params, ctx) => rangeOutcome(countCharacters(ctx.text), params, "character"),
});
