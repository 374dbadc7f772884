import priceData from "./prices.json" with { type: "json" };
import { PROVIDERS } from "./catalogue.ts";

/** One model of the gateway's own list, in OpenAI's model object shape. */
export interface CatalogueModel {
  /** `@<provider>/<model>`: as a request's `model`, it selects the provider too. */
  id: string;
  object: "model";
  /** When the price table was last checked (its `as_of`), in Unix seconds. */
  created: number;
  owned_by: string;
}

/**
 * The models the gateway knows of, per provider: every model of the price table
 * (`prices.json`) under a provider the gateway reaches, in the table's order. Built once.
 */
export const catalogueModels: readonly CatalogueModel[] = (() => {
  const created = Math.floor(Date.parse(`${priceData.as_of}T00:00:00Z`) / 1000);
  const providers = priceData.providers as Record<string, Record<string, unknown>>;
  return Object.entries(providers)
    .filter(([provider]) => PROVIDERS.has(provider))
    .flatMap(([provider, models]) => Object.keys(models).map((model): CatalogueModel => ({ id: `@${provider}/${model}`, object: "model", created, owned_by: provider })));
})();
