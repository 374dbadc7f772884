import { resolveModelPrice } from "../operation/cost.ts";
import type { RequestBody } from "../operation/request-body.ts";

/**
 * Spend is counted in units of 1e-10 USD, the precision `computeCostUsd` rounds to, so that
 * sums in Redis (`HINCRBY`) and in memory stay exact integers up to about $900,000.
 */
export const UNITS_PER_USD = 1e10;

export const toUnits = (usd: number): number => (Number.isFinite(usd) && usd > 0 ? Math.round(usd * UNITS_PER_USD) : 0);
export const toUsd = (units: number): number => units / UNITS_PER_USD;

/**
 * The most a request's prompt can count in tokens: its JSON body's size in UTF-8 bytes. A
 * byte-level BPE token covers at least one byte of text and the body also holds the JSON
 * around the text, so this is an upper bound (images sent by URL are not: their tokens are
 * not in the body). Other bodies (uploads) count 0: their cost is only known after the call.
 */
export function promptTokenBound(body: RequestBody): number {
  if (body.kind !== "json") return 0;
  return Buffer.byteLength(body.raw ?? JSON.stringify(body.value), "utf8");
}

/**
 * The most a request can be answered with, in tokens: `max_completion_tokens`, `max_tokens` or
 * `max_output_tokens` when the body sets one, else `defaultCap`; times `n` choices.
 */
export function completionTokenBound(body: RequestBody, defaultCap: number): number {
  if (body.kind !== "json") return 0;
  const json = body.value;
  const cap = [json.max_completion_tokens, json.max_tokens, json.max_output_tokens].find(isCount) ?? defaultCap;
  const choices = isCount(json.n) && json.n > 1 ? json.n : 1;
  return cap * choices;
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value > 0;
}

/**
 * The worst-case cost of a call to `model` at `provider`, in units: the prompt bound at the
 * input price plus the completion bound at the output price (prices from `providers/prices.json`
 * through `resolveModelPrice`, the table the log prices with). 0 for a model without a price,
 * whose log cost is null too, so it settles 0 as well. Pure.
 */
export function worstCaseUnits(provider: string, model: string | null, promptTokens: number, completionTokens: number): number {
  const price = model === null ? null : resolveModelPrice(provider, model);
  if (!price) return 0;
  return toUnits((promptTokens * price.input + completionTokens * price.output) / 1_000_000);
}
