/**
 * Prices a request from its token usage and the price table `src/providers/prices.json`
 * (each provider's pricing page is listed in its `sources`).
 */
import type { PriceTable } from "../providers/price-table.ts";
import priceData from "../providers/prices.json" with { type: "json" };
import type { Usage } from "./answer-reader.ts";

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  /** Price of prompt tokens read from the provider's cache; `input` applies when absent. */
  cachedInput: number | null;
  /** Price of prompt tokens written to the provider's cache; listed only where it differs from `input`. */
  cacheWrite?: number;
  output: number;
}

/** A price in millionths of a dollar per million tokens, so that tokens × price is an exact integer (picodollars). */
interface ScaledPrice {
  price: ModelPrice;
  input: number;
  cachedInput: number;
  cacheWrite: number;
  output: number;
}

interface ProviderTable {
  exact: Map<string, ScaledPrice | null>;
  /** `model-` prefixes, longest first. */
  prefixes: { prefix: string; price: ScaledPrice | null }[];
}

// Its shape is checked when the gateway starts (`checkPriceTable`).
const table = priceData as PriceTable;

/** The date the price table was last checked against its sources. */
export const PRICES_AS_OF: string = table.as_of;

const scale = (usdPerMillion: number): number => Math.round(usdPerMillion * 1_000_000);

const TABLES: ReadonlyMap<string, ProviderTable> = new Map(
  Object.entries(table.providers).map(([provider, models]) => {
    const exact = new Map<string, ScaledPrice | null>();
    for (const [model, raw] of Object.entries(models)) {
      const price: ModelPrice | null = raw ? { input: raw.input, cachedInput: raw.cached_input ?? null, output: raw.output } : null;
      if (price && raw?.cache_write !== undefined) price.cacheWrite = raw.cache_write;
      exact.set(
        model.toLowerCase(),
        price && {
          price,
          input: scale(price.input),
          cachedInput: scale(price.cachedInput ?? price.input),
          cacheWrite: scale(price.cacheWrite ?? price.input),
          output: scale(price.output),
        },
      );
    }
    const prefixes = [...exact.entries()]
      .sort(([a], [b]) => b.length - a.length)
      .map(([model, price]) => ({ prefix: `${model}-`, price }));
    return [provider.toLowerCase(), { exact, prefixes }];
  }),
);

/** A search rule's price in picodollars per unit counted. */
interface SearchPrice {
  prefix: string;
  picodollars: number;
  counts: "search" | "grounded_answer";
}

const SEARCH_PRICES: ReadonlyMap<string, readonly SearchPrice[]> = new Map(
  Object.entries(table.web_search.providers).map(([provider, rules]) => [
    provider.toLowerCase(),
    rules.map((rule) => ({ prefix: rule.models?.toLowerCase() ?? "", picodollars: Math.round(rule.per_thousand * 1e9), counts: rule.counts })),
  ]),
);

/** The charge in picodollars for the searches an answer ran; 0 where the provider lists none. */
function searchPicodollars(provider: string, model: string, searches: number): number {
  if (searches <= 0) return 0;
  const name = model.toLowerCase();
  const rule = SEARCH_PRICES.get(provider.toLowerCase())?.find((candidate) => name.startsWith(candidate.prefix));
  if (!rule) return 0;
  return (rule.counts === "search" ? searches : 1) * rule.picodollars;
}

const MAX_RESOLVED = 1000;
const resolved = new Map<string, ScaledPrice | null>();

function resolve(provider: string, model: string): ScaledPrice | null {
  const key = `${provider}\n${model}`;
  const cached = resolved.get(key);
  if (cached !== undefined) return cached;
  const providerTable = TABLES.get(provider.toLowerCase());
  let found: ScaledPrice | null = null;
  if (providerTable) {
    const name = model.toLowerCase();
    const exact = providerTable.exact.get(name);
    if (exact !== undefined) found = exact;
    else found = providerTable.prefixes.find((entry) => name.startsWith(entry.prefix))?.price ?? null;
  }
  resolved.set(key, found);
  if (resolved.size > MAX_RESOLVED) {
    const oldest = resolved.keys().next();
    if (!oldest.done) resolved.delete(oldest.value);
  }
  return found;
}

/**
 * The price of a model in the given provider's table only: the exact name first (case
 * does not matter), else the longest listed name that, followed by `-`, begins the given
 * one (`gpt-4o-2024-08-06` → `gpt-4o`, `gpt-4o-mini-2024-07-18` → `gpt-4o-mini`). Null when
 * unknown, or when the match is listed as unpriced. Resolutions are cached. Never throws.
 */
export function resolveModelPrice(provider: string, model: string): ModelPrice | null {
  const found = resolve(provider, model);
  return found && { ...found.price };
}

function tokens(value: number): number {
  return Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/**
 * The cost in USD of one request, rounded to 10 decimal places:
 * ((prompt − cached − written) × input + cached × (cached_input ?? input)
 *   + written × (cache_write ?? input) + completion × output) / 1e6 + the searches' charge,
 * where `written` are the prompt tokens written to the provider's cache. Cached tokens beyond
 * the prompt count are capped at it, written ones at what is left; negative or non-finite counts
 * count 0. Searches the provider ran (`usage.webSearches`) are priced by the table's `web_search`
 * rules: per search, or once for an answer that searched at all. Reasoning tokens are part of `completionTokens` and are not added again. The sum
 * is exact (integer picodollars) while it stays below about $9,000. Null when the model has
 * no price (see `resolveModelPrice`). Never throws.
 */
export function computeCostUsd(provider: string, model: string, usage: Usage): number | null {
  const price = resolve(provider, model);
  if (!price) return null;
  const prompt = tokens(usage.promptTokens);
  const cached = Math.min(tokens(usage.cachedTokens), prompt);
  const written = Math.min(tokens(usage.cacheWriteTokens ?? 0), prompt - cached);
  const picodollars =
    (prompt - cached - written) * price.input +
    cached * price.cachedInput +
    written * price.cacheWrite +
    tokens(usage.completionTokens) * price.output +
    searchPicodollars(provider, model, tokens(usage.webSearches ?? 0));
  return Math.round(picodollars / 100) / 1e10;
}

const BATCH_RATES: ReadonlyMap<string, number> = new Map(Object.entries(table.batch.providers).map(([provider, entry]) => [provider.toLowerCase(), entry.rate]));

/**
 * The cost in USD of one request run in the provider's batch: its on-demand cost
 * (`computeCostUsd`) times the provider's batch rate (the table's `batch` section), rounded to 10
 * decimal places. Null when the model has no price or the provider no batch rate. Never throws.
 */
export function computeBatchCostUsd(provider: string, model: string, usage: Usage): number | null {
  const rate = BATCH_RATES.get(provider.toLowerCase());
  const cost = rate === undefined ? null : computeCostUsd(provider, model, usage);
  return cost === null || rate === undefined ? null : Math.round(cost * rate * 1e10) / 1e10;
}
