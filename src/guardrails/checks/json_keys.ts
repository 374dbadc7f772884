/**
 * `json_keys` — the top-level keys of the JSON object the text carries (found as for
 * `json_schema`: whole text, a ```json fence```, or the first `{…}` that parses). `keys`: 1–100
 * key names; `operator`: "any" passes when at least one is present, "all" when every one is,
 * "none" when none is. Fails when the text carries no JSON object.
 */
import { z } from "zod";
import { findJson } from "../json-extract.ts";
import { applyOperator, matchOperator, nameList } from "../operator.ts";
import { defineCheck } from "../types.ts";

export const jsonKeys = defineCheck({
  type: "json_keys",
  params: z.strictObject({ keys: nameList("key"), operator: matchOperator }),
  run: ({ keys, operator }, ctx) => {
    const json = findJson(ctx.text);
    if (!json.found) return { verdict: false, explanation: "The text contains no JSON that parses." };
    const value = json.value;
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return { verdict: false, explanation: "The JSON in the text is not an object." };
    }
    const found = keys.filter((key) => Object.hasOwn(value, key));
    const { verdict, explanation } = applyOperator(operator, keys, found, "key");
    return { verdict, explanation, data: { found } };
  },
});
