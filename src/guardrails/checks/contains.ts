/**
 * `contains` — looks for `words` (1–100 non-empty strings) in the text as substrings.
 * `operator`: "any" passes when at least one is found, "all" when every one is, "none" when
 * none is. Matching ignores case unless `case_sensitive: true`.
 */
import { z } from "zod";
import { applyOperator, matchOperator, nameList } from "../operator.ts";
import { defineCheck } from "../types.ts";

export const contains = defineCheck({
  type: "contains",
  params: z.strictObject({
    words: nameList("word"),
    operator: matchOperator,
    case_sensitive: z.boolean().optional(),
  }),
  run: ({ words, operator, case_sensitive }, ctx) => {
    const fold = (text: string) => (case_sensitive ? text : text.toLowerCase());
    const haystack = fold(ctx.text);
    const found = words.filter((word) => haystack.includes(fold(word)));
    const { verdict, explanation } = applyOperator(operator, words, found, "word");
    return { verdict, explanation, data: { found } };
  },
});
