import { describe, expect, it } from "vitest";
import { rerankAnswers, rerankInputText } from "./index.ts";

const priced = (provider: string, model: string, answer: unknown, succeeded = true) =>
  rerankAnswers.cost!({ provider, model, requestBody: null, answerBody: JSON.stringify(answer), succeeded });

describe("the rerank family", () => {
  it("prices search units per thousand and tokens per million, as the model is listed", () => {
    expect(priced("cohere", "rerank-v3.5", { usage: { search_units: 3 } })).toBeCloseTo(0.006, 12);
    // Cohere's own format, as a client of its v2 path gets it.
    expect(priced("cohere", "rerank-v3.5", { meta: { billed_units: { search_units: 1 } } })).toBeCloseTo(0.002, 12);
    expect(priced("voyage", "rerank-2.5-lite", { usage: { total_tokens: 1000 } })).toBeCloseTo(0.00002, 12);
  });

  it("prices nothing it cannot know: an unlisted model, a failure, a unit the model is not listed by", () => {
    expect(priced("jina", "jina-reranker-v2-base-multilingual", { usage: { total_tokens: 10 } })).toBeNull();
    expect(priced("cohere", "rerank-v3.5", { usage: { search_units: 1 } }, false)).toBeNull();
    expect(priced("cohere", "rerank-v3.5", { usage: { total_tokens: 10 } })).toBeNull();
  });

  it("counts tokens read as prompt tokens", () => {
    expect(rerankAnswers.usage({ total_tokens: 7 })).toEqual({ promptTokens: 7, completionTokens: 0, totalTokens: 7, cachedTokens: 0, reasoningTokens: 0 });
    expect(rerankAnswers.usage({ search_units: 1 })).toBeNull();
  });

  it("gives guardrails the query and every document's text", () => {
    expect(rerankInputText({ query: "q", documents: ["a", { text: "b" }, { title: "c" }] })).toBe("q\na\nb");
  });
});
