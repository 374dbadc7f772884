/**
 * The rerank family: how the log reads a ranking (`usage.total_tokens` as prompt tokens, never
 * completion tokens) and prices it by what the provider bills (search units or tokens, from the
 * price table's `rerank` section); which text input guardrails judge; when it may be cached.
 * A Cohere-format answer (`meta.billed_units`) is read as well as the gateway's `usage`.
 */
import { field, jsonAnswers, parseJson, type AnswerReader, type PricedAnswer, type Usage } from "../../operation/answer-reader.ts";
import { alwaysCacheable, type CacheRule } from "../../operation/descriptor.ts";
import type { JsonObject } from "../../providers/provider.ts";
import { rerankCostUsd } from "./prices.ts";

const count = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null);

/** What the answer says was billed: the gateway's `usage`, or Cohere's `meta.billed_units`. */
function billedOf(answer: unknown): { searchUnits: number | null; tokens: number | null } {
  const usage = field(answer, "usage");
  const billedUnits = field(field(answer, "meta"), "billed_units");
  return {
    searchUnits: count(field(usage, "search_units")) ?? count(field(billedUnits, "search_units")),
    tokens: count(field(usage, "total_tokens")) ?? count(field(billedUnits, "total_tokens")),
  };
}

/** Tokens read are prompt tokens; a ranking writes none. */
function rerankUsage(raw: unknown): Usage | null {
  const tokens = count(field(raw, "total_tokens"));
  return tokens === null ? null : { promptTokens: tokens, completionTokens: 0, totalTokens: tokens, cachedTokens: 0, reasoningTokens: 0 };
}

function rerankCost({ provider, model, answerBody, succeeded }: PricedAnswer): number | null {
  if (!succeeded || !provider || !model || answerBody === null) return null;
  return rerankCostUsd(provider, model, billedOf(parseJson(answerBody)));
}

export const rerankAnswers: AnswerReader = { ...jsonAnswers, name: "rerank", usage: rerankUsage, cost: rerankCost };

/** A ranking depends on its request alone. */
export const rerankCacheRule: CacheRule = alwaysCacheable;

/** The query and the documents' text, one per line, for input guardrails. */
export function rerankInputText(body: JsonObject): string {
  const documents = Array.isArray(body.documents) ? body.documents : [];
  const texts = documents.map((document) => (typeof document === "string" ? document : typeof field(document, "text") === "string" ? (field(document, "text") as string) : ""));
  return [typeof body.query === "string" ? body.query : "", ...texts].filter(Boolean).join("\n");
}
