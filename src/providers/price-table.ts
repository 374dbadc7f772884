/**
 * The shape of the price table `prices.json`. Checked once when the gateway starts (and by the
 * tests), so that `core/cost.ts` can read the table without loading zod: the log worker prices
 * every record and would otherwise carry zod's memory for this one check.
 */
import { z } from "zod";
import priceData from "./prices.json" with { type: "json" };

const PriceSchema = z
  .object({ input: z.number().nonnegative(), cached_input: z.number().nonnegative().optional(), output: z.number().nonnegative() })
  .strict();

export const PriceTableSchema = z
  .object({
    as_of: z.iso.date(),
    currency: z.literal("USD"),
    unit: z.literal("per_million_tokens"),
    note: z.string().min(1),
    sources: z.record(z.string(), z.url()),
    providers: z.record(z.string(), z.record(z.string(), PriceSchema.nullable())),
  })
  .strict();

/** USD per million tokens, as the table lists them. */
export type PriceTable = z.infer<typeof PriceTableSchema>;

/** Throws, naming the field, when `prices.json` does not have the table's shape. */
export function checkPriceTable(): void {
  PriceTableSchema.parse(priceData);
}
