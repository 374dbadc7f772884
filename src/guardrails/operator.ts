import { z } from "zod";
import { plural } from "./limits.ts";

/** How a list of expected items is matched: any of them, all of them, or none of them. */
export const matchOperator = z.enum(["any", "all", "none"]);
export type MatchOperator = z.infer<typeof matchOperator>;

/** A non-empty list of distinct, non-empty strings (words, keys, models). */
export function nameList(what: string, maxItems = 100, maxLength = 500) {
  return z
    .array(z.string().min(1, `each ${what} must be a non-empty string`).max(maxLength))
    .min(1, `give at least one ${what}`)
    .max(maxItems, `give at most ${maxItems} ${what}s`);
}

/** The verdict of `operator` given which of `expected` were found, with a sentence. */
export function applyOperator(
  operator: MatchOperator,
  expected: readonly string[],
  found: readonly string[],
  noun: string,
): { verdict: boolean; explanation: string } {
  const missing = expected.filter((item) => !found.includes(item));
  const list = (items: readonly string[]) => items.map((item) => `"${item}"`).join(", ");
  switch (operator) {
    case "any":
      return found.length > 0
        ? { verdict: true, explanation: `Found ${plural(found.length, noun)} of the list: ${list(found)}.` }
        : { verdict: false, explanation: `None of the ${plural(expected.length, noun)} was found.` };
    case "all":
      return missing.length === 0
        ? { verdict: true, explanation: `All ${plural(expected.length, noun)} were found.` }
        : { verdict: false, explanation: `Missing ${plural(missing.length, noun)}: ${list(missing)}.` };
    case "none":
      return found.length === 0
        ? { verdict: true, explanation: `None of the ${plural(expected.length, noun)} was found.` }
        : { verdict: false, explanation: `Found ${plural(found.length, noun)} that must not appear: ${list(found)}.` };
  }
}
