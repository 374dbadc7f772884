/**
 * The shape of the price table `prices.json`. Checked once when the gateway starts (and by the
 * tests), so that `operation/cost.ts` can read the table without loading zod: the log worker prices
 * every record and would otherwise carry zod's memory for this one check.
 */
import { z } from "zod";
import priceData from "./prices.json" with { type: "json" };

const PriceSchema = z
  .object({
    input: z.number().nonnegative(),
    cached_input: z.number().nonnegative().optional(),
    /** Prompt tokens written to the provider's cache (Anthropic bills them above `input`). */
    cache_write: z.number().nonnegative().optional(),
    output: z.number().nonnegative(),
  })
  .strict();

const usd = z.number().nonnegative();

/** Images per image by quality then size; speech per character or token; transcription per minute or token. */
export const MediaPriceTableSchema = z
  .object({
    as_of: z.iso.date(),
    note: z.string().min(1),
    sources: z.record(z.string(), z.url()),
    /** Entries (by provider, model) not yet checked against the provider's own pricing page. */
    unverified: z.record(z.string(), z.array(z.string().min(1))).optional(),
    providers: z.record(
      z.string(),
      z
        .object({
          images: z.record(
            z.string(),
            z
              .object({
                defaults: z.object({ size: z.string(), quality: z.string() }).strict().optional(),
                /** By quality then size (OpenAI's listed sizes). */
                per_image: z.record(z.string(), z.record(z.string().regex(/^[0-9]+x[0-9]+$/), usd)).optional(),
                /** One price whatever the size and quality (Imagen). */
                each: usd.optional(),
                /** By the image's pixels, the first tier that holds them, then quality (Bedrock's Nova Canvas and Titan Image). */
                tiers: z.array(z.object({ max_pixels: z.number().int().positive(), per_image: z.record(z.string(), usd) }).strict()).min(1).optional(),
              })
              .strict()
              .refine((entry) => [entry.per_image, entry.each, entry.tiers].filter((way) => way !== undefined).length === 1, "an image price is one of per_image, each or tiers"),
          ),
          speech: z.record(
            z.string(),
            z
              .object({ per_million_characters: usd.optional(), per_million_tokens: z.object({ input: usd, output: usd }).strict().optional() })
              .strict(),
          ),
          transcription: z.record(
            z.string(),
            z
              .object({ per_minute: usd.optional(), per_million_tokens: z.object({ input: usd, audio_input: usd, output: usd }).strict().optional() })
              .strict(),
          ),
          video: z.record(
            z.string(),
            z
              .object({
                as_of: z.iso.date(),
                source: z.url(),
                defaults: z.object({ size: z.string(), seconds: z.number().positive() }).strict(),
                per_second: z.record(z.string().regex(/^[0-9]+x[0-9]+$/), usd),
              })
              .strict(),
          ),
        })
        .partial()
        .strict(),
    ),
  })
  .strict();

/** A provider's charge for its own searches: rules tried in order, `models` a model name prefix. */
const SearchPriceRuleSchema = z
  .object({ models: z.string().min(1).optional(), per_thousand: usd, counts: z.enum(["search", "grounded_answer"]) })
  .strict();

export const WebSearchPriceTableSchema = z
  .object({
    as_of: z.iso.date(),
    note: z.string().min(1),
    sources: z.record(z.string(), z.url()),
    providers: z.record(z.string(), z.array(SearchPriceRuleSchema).min(1)),
  })
  .strict();

/** Rerank models: per thousand search units (Cohere) or per million tokens read (Voyage, Jina). */
export const RerankPriceTableSchema = z
  .object({
    as_of: z.iso.date(),
    note: z.string().min(1),
    sources: z.record(z.string(), z.url()),
    providers: z.record(
      z.string(),
      z.record(z.string(), z.object({ per_thousand_search_units: usd.optional(), per_million_tokens: usd.optional() }).strict()),
    ),
  })
  .strict();

/** Batch rates: the share of the on-demand price a provider's batch bills. */
export const BatchPriceTableSchema = z
  .object({
    as_of: z.iso.date(),
    note: z.string().min(1),
    sources: z.record(z.string(), z.url()),
    providers: z.record(z.string(), z.object({ rate: z.number().positive().max(1) }).strict()),
  })
  .strict();

/** The `rerank` section. */
export type RerankPriceTable = z.infer<typeof RerankPriceTableSchema>;

export const PriceTableSchema = z
  .object({
    as_of: z.iso.date(),
    currency: z.literal("USD"),
    unit: z.literal("per_million_tokens"),
    note: z.string().min(1),
    sources: z.record(z.string(), z.url()),
    /** A provider's own check date, where its block was checked apart from the table's `as_of`. */
    checked: z.record(z.string(), z.iso.date()).optional(),
    /** Entries (by provider, model) not yet checked against the provider's own pricing page: taken from secondary sources. */
    unverified: z.record(z.string(), z.array(z.string().min(1))).optional(),
    providers: z.record(z.string(), z.record(z.string(), PriceSchema.nullable())),
    media: MediaPriceTableSchema,
    web_search: WebSearchPriceTableSchema,
    rerank: RerankPriceTableSchema,
    batch: BatchPriceTableSchema,
  })
  .strict();

/** The `media` section: prices not (only) per token. */
export type MediaPriceTable = z.infer<typeof MediaPriceTableSchema>;

/** USD per million tokens, as the table lists them. */
export type PriceTable = z.infer<typeof PriceTableSchema>;

/** Throws, naming the field, when `prices.json` does not have the table's shape. */
export function checkPriceTable(): void {
  PriceTableSchema.parse(priceData);
}
