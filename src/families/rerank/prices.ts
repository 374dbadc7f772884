/**
 * Prices a ranking from the `rerank` section of `src/providers/prices.json` (its `sources` name
 * the pricing pages): per thousand search units, or per million tokens read, whichever the
 * model is listed with and the answer reports. Null when either is unknown. Never throws.
 */
import type { RerankPriceTable } from "../../providers/price-table.ts";
import priceData from "../../providers/prices.json" with { type: "json" };

// Its shape is checked when the gateway starts (`checkPriceTable`).
const rerank = (priceData as unknown as { rerank: RerankPriceTable }).rerank;

/** What a ranking billed, as its answer reports it. */
export interface RerankBilled {
  searchUnits: number | null;
  tokens: number | null;
}

/** The model's listed price: its exact name (any case), else the longest listed name that, followed by `-`, begins it. */
function priceOf(provider: string, model: string): RerankPriceTable["providers"][string][string] | null {
  const entries = rerank.providers[provider.toLowerCase()];
  if (!entries) return null;
  const name = model.toLowerCase();
  let best: { length: number; price: RerankPriceTable["providers"][string][string] } | null = null;
  for (const [listed, price] of Object.entries(entries)) {
    const key = listed.toLowerCase();
    if (key === name) return price;
    if (name.startsWith(`${key}-`) && (!best || key.length > best.length)) best = { length: key.length, price };
  }
  return best?.price ?? null;
}

export function rerankCostUsd(provider: string, model: string, billed: RerankBilled): number | null {
  const price = priceOf(provider, model);
  if (!price) return null;
  if (price.per_thousand_search_units !== undefined && billed.searchUnits !== null) return round((billed.searchUnits * price.per_thousand_search_units) / 1000);
  if (price.per_million_tokens !== undefined && billed.tokens !== null) return round((billed.tokens * price.per_million_tokens) / 1e6);
  return null;
}

const round = (usd: number): number => Math.round(usd * 1e10) / 1e10;
