/**
 * Rerank through Cohere's own SDK (`cohere-ai`), whose client takes a base URL and posts to
 * `<base URL>/v1/rerank`: pointed at the gateway, it reaches Cohere, Jina and Voyage (the local
 * stand-in of test/support/rerank-upstream.ts), and reads the gateway's answer as a Cohere one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CohereClient, CohereError } from "cohere-ai";
import { storedLog, startGateway, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { ranking, startRerankUpstream, type RerankUpstream } from "./support/rerank-upstream.ts";

let gateway: RunningGateway;
let upstream: RerankUpstream;

beforeAll(async () => {
  upstream = await startRerankUpstream();
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** Cohere's client on the gateway: its token is the upstream key; gateway headers say where to go. */
function cohereClient(provider: string, host: string): CohereClient {
  return new CohereClient({
    baseUrl: gateway.url,
    token: UPSTREAM_KEY,
    maxRetries: 0,
    headers: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": provider, "x-gateway-custom-host": `${upstream.origin}${host}` },
  });
}

const QUERY = "capital of France";
const DOCUMENTS = ["Berlin is the capital of Germany.", "Paris is the capital of France.", "Bananas are yellow."];

describe.each([
  { provider: "cohere", host: "/cohere", model: "rerank-v3.5" },
  { provider: "jina", host: "/jina/v1", model: "jina-reranker-v2-base-multilingual" },
  { provider: "voyage", host: "/voyage/v1", model: "rerank-2.5" },
])("Cohere's SDK through the gateway to $provider", ({ provider, host, model }) => {
  it("ranks the documents, with them when asked, and the gateway logs the call", async () => {
    const { data, rawResponse } = await cohereClient(provider, host).rerank({ model, query: QUERY, documents: DOCUMENTS, topN: 2, returnDocuments: true }).withRawResponse();
    const expected = ranking(QUERY, DOCUMENTS).slice(0, 2);
    expect(data.results.map((result) => ({ index: result.index, relevanceScore: result.relevanceScore, text: result.document?.text }))).toEqual(
      expected.map(({ index, relevance_score }) => ({ index, relevanceScore: relevance_score, text: DOCUMENTS[index] })),
    );
    expect(data.results[0]?.document?.text).toBe("Paris is the capital of France.");
    expect(rawResponse.headers.get("x-gateway-provider")).toBe(provider);
    const record = await storedLog(gateway, rawResponse.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ provider, model, route: "createRerank", status: 200, success: true });
  });
});

describe("Cohere's SDK through the gateway", () => {
  it("gets the provider's error as its own error class, with the status kept", async () => {
    const failure = await cohereClient("cohere", "/cohere")
      .rerank({ model: "rerank-v3.5", query: "overloaded", documents: ["a"] })
      .then(() => null, (error: unknown) => error);
    expect(failure).toBeInstanceOf(CohereError);
    expect((failure as InstanceType<typeof CohereError>).statusCode).toBe(429);
  });
});
