import { describe, expect, it } from "vitest";
import { GatewayError } from "../errors.ts";
import { cohereProvider } from "./cohere/index.ts";
import { jinaProvider } from "./jina/index.ts";
import { voyageProvider } from "./voyage/index.ts";
import { bedrockProvider } from "./bedrock/index.ts";
import { rerankProviderError } from "./rerank.ts";
import type { JsonObject, Provider } from "./provider.ts";

const client: JsonObject = { model: "m", query: "q", documents: ["one", { text: "two" }], top_n: 1, return_documents: true, truncation: false };
const send = (provider: Provider, body: JsonObject = client) => provider.operations.createRerank!.request!(body, { model: "m", stream: false });
const answerOf = (provider: Provider, answer: JsonObject, clientBody: JsonObject = client): JsonObject => provider.operations.createRerank!.response!(answer, { clientBody, model: "m" }) as JsonObject;

describe("rerank transforms", () => {
  it("Cohere: strings at /v2/rerank, search units as usage, documents from the request", () => {
    expect(send(cohereProvider)).toEqual({ body: { model: "m", query: "q", documents: ["one", "two"], top_n: 1, truncation: false }, path: "/v2/rerank" });
    const answer = { id: "r1", results: [{ index: 1, relevance_score: 0.9 }], meta: { billed_units: { search_units: 1 } } };
    expect(answerOf(cohereProvider, answer)).toEqual({ id: "r1", object: "rerank", model: "m", results: [{ index: 1, relevance_score: 0.9, document: { text: "two" } }], usage: { search_units: 1 } });
  });

  it("Jina: documents as sent, return_documents always said, tokens as usage", () => {
    expect(send(jinaProvider, { model: "m", query: "q", documents: ["a"] })).toEqual({ body: { model: "m", query: "q", documents: ["a"], return_documents: false } });
    const answer = { model: "jina-reranker-v2", usage: { total_tokens: 12 }, results: [{ index: 0, relevance_score: 0.5, document: { text: "one" } }] };
    expect(answerOf(jinaProvider, answer)).toEqual({ object: "rerank", model: "jina-reranker-v2", results: [{ index: 0, relevance_score: 0.5, document: { text: "one" } }], usage: { total_tokens: 12 } });
    // Not asked for: left out, whatever the provider sent.
    expect(answerOf(jinaProvider, answer, { ...client, return_documents: false })).toMatchObject({ results: [{ index: 0, relevance_score: 0.5 }] });
    expect((answerOf(jinaProvider, answer, { ...client, return_documents: false }).results as JsonObject[])[0]).not.toHaveProperty("document");
  });

  it("Voyage: top_n as top_k, results from data, string documents read as text", () => {
    expect(send(voyageProvider)).toEqual({ body: { model: "m", query: "q", documents: ["one", "two"], top_k: 1, return_documents: true, truncation: false } });
    const answer = { object: "list", data: [{ index: 0, relevance_score: 0.7, document: "one" }], model: "rerank-2.5", usage: { total_tokens: 9 } };
    expect(answerOf(voyageProvider, answer)).toEqual({ object: "rerank", model: "rerank-2.5", results: [{ index: 0, relevance_score: 0.7, document: { text: "one" } }], usage: { total_tokens: 9 } });
  });

  it("Bedrock: Cohere's body with api_version 2 at InvokeModel, one search unit per 100 documents", () => {
    const sent = bedrockProvider.operations.createRerank!.request!(client, { model: "cohere.rerank-v3-5:0", stream: false });
    expect(sent).toEqual({ body: { query: "q", documents: ["one", "two"], top_n: 1, truncation: false, api_version: 2 }, path: "/model/cohere.rerank-v3-5%3A0/invoke" });
    const many = { ...client, documents: Array.from({ length: 150 }, (_, index) => `doc ${index}`) };
    const answer = bedrockProvider.operations.createRerank!.response!({ id: "b1", results: [{ index: 7, relevance_score: 0.4 }] }, { clientBody: many, model: "cohere.rerank-v3-5:0" });
    expect(answer).toEqual({ id: "b1", object: "rerank", model: "cohere.rerank-v3-5:0", results: [{ index: 7, relevance_score: 0.4, document: { text: "doc 7" } }], usage: { search_units: 2 } });
    const amazon = bedrockProvider.operations.createRerank!.request!(client, { model: "amazon.rerank-v1:0", stream: false });
    expect("error" in amazon && amazon.error).toMatchObject({ status: 400, param: "model" });
  });

  it("refuses a document without text, naming it", () => {
    const refused = send(cohereProvider, { model: "m", query: "q", documents: ["a", { title: "b" }] });
    expect("error" in refused && refused.error).toMatchObject({ status: 400, param: "documents[1]" });
  });

  it("reads each provider's error shape", () => {
    expect(rerankProviderError(429, '{"message":"Trial key limited"}', "Cohere", {}).message).toBe("Trial key limited");
    expect(rerankProviderError(422, '{"detail":[{"msg":"field required"},{"msg":"bad top_n"}]}', "Jina AI", {}).message).toBe("field required; bad top_n");
    expect(rerankProviderError(400, '{"detail":"invalid model"}', "Voyage AI", {})).toMatchObject({ status: 400, message: "invalid model" });
    const plain = rerankProviderError(502, "Bad gateway", "Voyage AI", {});
    expect(plain).toBeInstanceOf(GatewayError);
    expect(plain.message).toBe("Voyage AI returned HTTP 502: Bad gateway");
  });
});
