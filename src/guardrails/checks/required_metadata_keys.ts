/**
 * `required_metadata_keys` — the request metadata (`x-gateway-metadata`) must hold the given
 * `keys` (1–100 names): all of them with `operator: "all"` (default), at least one with "any".
 * A key counts as present whatever its value, empty string included.
 */
import { z } from "zod";
import { applyOperator, nameList } from "../operator.ts";
import { defineCheck } from "../types.ts";

export const requiredMetadataKeys = defineCheck({
  type: "required_metadata_keys",
  params: z.strictObject({
    keys: nameList("key"),
    operator: z.enum(["all", "any"]).optional(),
  }),
  run: ({ keys, operator = "all" }, ctx) => {
    const found = keys.filter((key) => Object.hasOwn(ctx.metadata, key));
    const { verdict, explanation } = applyOperator(operator, keys, found, "metadata key");
    return { verdict, explanation, data: { missing: keys.filter((key) => !found.includes(key)) } };
  },
});
