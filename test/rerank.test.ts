/**
 * `POST /v1/rerank` through the real gateway, with a plain `fetch`, to Cohere, Jina, Voyage and
 * Bedrock (a local stand-in answering in each one's documented shape) and to an OpenAI-compatible server:
 * the provider's own request on the wire, one answer format back, the ranking logged and priced
 * as each provider bills (search units or tokens), cached, errors and bad input refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storedLog, startGateway, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { gatewayContractProblems } from "./support/contract.ts";
import { ranking, startRerankUpstream, tokensOf, type RerankUpstream } from "./support/rerank-upstream.ts";

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

const QUERY = "capital of France";
const DOCUMENTS = ["Berlin is the capital of Germany.", { text: "Paris is the capital of France." }, "The Loire is a river in France.", "Bananas are yellow."];
const TEXTS = DOCUMENTS.map((document) => (typeof document === "string" ? document : document.text));

interface Row {
  provider: string;
  model: string;
  /** The custom host: the stand-in's path for the provider. */
  host: string;
  /** What the provider's own request must be on the wire. */
  wire: (body: Record<string, unknown>) => void;
  /** The expected cost of one ranking of DOCUMENTS. */
  cost: number | null;
  tokens: number;
}

const TOKENS = tokensOf(QUERY, TEXTS);

const rows: Row[] = [
  {
    provider: "cohere",
    model: "rerank-v3.5",
    host: "/cohere",
    wire: (body) => {
      expect(body).toEqual({ model: "rerank-v3.5", query: QUERY, documents: TEXTS, top_n: 2, max_tokens_per_doc: 512 });
    },
    // One search unit at $2 per thousand.
    cost: 0.002,
    tokens: 0,
  },
  {
    provider: "jina",
    model: "jina-reranker-v2-base-multilingual",
    host: "/jina/v1",
    wire: (body) => {
      expect(body).toEqual({ model: "jina-reranker-v2-base-multilingual", query: QUERY, documents: DOCUMENTS, top_n: 2, return_documents: true, max_tokens_per_doc: 512 });
    },
    // Jina bills tokens from prepaid packages: not in the price table.
    cost: null,
    tokens: TOKENS,
  },
  {
    provider: "voyage",
    model: "rerank-2.5",
    host: "/voyage/v1",
    wire: (body) => {
      expect(body).toEqual({ model: "rerank-2.5", query: QUERY, documents: TEXTS, top_k: 2, return_documents: true, max_tokens_per_doc: 512 });
    },
    cost: (TOKENS * 0.05) / 1e6,
    tokens: TOKENS,
  },
  {
    provider: "bedrock",
    model: "cohere.rerank-v3-5:0",
    host: "/bedrock",
    wire: (body) => {
      expect(body).toEqual({ query: QUERY, documents: TEXTS, top_n: 2, api_version: 2, max_tokens_per_doc: 512 });
    },
    // One query of up to 100 documents at $2 per thousand.
    cost: 0.002,
    tokens: 0,
  },
];

/** Bedrock's SigV4 credentials, as headers. */
const AWS_HEADERS = { "x-gateway-aws-access-key-id": "AKIAIOSFODNN7EXAMPLE", "x-gateway-aws-secret-access-key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYRERANKKEY", "x-gateway-aws-region": "us-east-1" };

/** A plain `fetch` to the gateway; `row` names the provider and its stand-in path, or null when a config does. */
async function rerank(row: Pick<Row, "provider" | "host"> | null, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const target: Record<string, string> = row ? { "x-gateway-provider": row.provider, "x-gateway-custom-host": `${upstream.origin}${row.host}`, ...(row.provider === "bedrock" ? AWS_HEADERS : {}) } : {};
  const response = await fetch(`${gateway.url}/v1/rerank`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-gateway-api-key": gateway.adminKey, authorization: `Bearer ${UPSTREAM_KEY}`, ...target, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
}

const expectedOrder = ranking(QUERY, TEXTS);

describe.each(rows)("rerank on $provider", (row) => {
  it("sends the provider's own request, answers in one format with the documents asked for, and logs tokens and cost", async () => {
    const answer = await rerank(row, { model: row.model, query: QUERY, documents: DOCUMENTS, top_n: 2, return_documents: true, max_tokens_per_doc: 512 });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(gatewayContractProblems("createRerank", 200, answer.body)).toEqual([]);
    row.wire(upstream.lastBody());
    if (row.provider === "bedrock") {
      expect(upstream.received.at(-1)!.path).toBe("/bedrock/model/cohere.rerank-v3-5%3A0/invoke");
      expect(upstream.received.at(-1)!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/us-east-1\/bedrock\/aws4_request/);
    } else {
      expect(upstream.received.at(-1)!.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    }
    expect(answer.body).toMatchObject({ object: "rerank", model: row.model });
    expect(answer.body.results).toEqual(expectedOrder.slice(0, 2).map(({ index, relevance_score }) => ({ index, relevance_score, document: { text: TEXTS[index] } })));
    expect(answer.body.results[0].document.text).toBe("Paris is the capital of France.");
    expect(answer.headers.get("x-gateway-provider")).toBe(row.provider);

    const record = await storedLog(gateway, answer.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ provider: row.provider, model: row.model, route: "createRerank", status: 200, success: true, promptTokens: row.tokens, completionTokens: 0 });
    if (row.cost === null) {
      expect(record.costUsd).toBeNull();
      expect(record.costNote).toMatch(/no price for jina\//);
    } else {
      expect(record.costUsd).toBeCloseTo(row.cost, 12);
    }
  });

  it("leaves the documents out unless asked, and ranks every document without top_n", async () => {
    const answer = await rerank(row, { model: row.model, query: QUERY, documents: DOCUMENTS });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.results).toEqual(expectedOrder);
    const sent = upstream.lastBody();
    expect(sent.top_n ?? sent.top_k).toBeUndefined();
    if (row.provider === "jina" || row.provider === "voyage") expect(sent.return_documents).toBe(false);
  });

  it("keeps the provider's error status and message", async () => {
    const answer = await rerank(row, { model: row.model, query: "overloaded", documents: ["a"] });
    expect(answer.status).toBe(429);
    expect(answer.body.error.message).toMatch(/limit|too many/i);
    const record = await storedLog(gateway, answer.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ provider: row.provider, status: 429, success: false });
  });
});

describe("rerank", () => {
  it("is served from the cache for an identical request, the hit costing nothing", async () => {
    const config = JSON.stringify({ provider: "voyage", custom_host: `${upstream.origin}/voyage/v1`, cache: { mode: "simple" } });
    const body = { model: "rerank-2.5-lite", query: "cached ranking of France", documents: ["France", "Spain"] };
    const headers = { "x-gateway-config": config };
    const first = await rerank(null, body, headers);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.headers.get("x-gateway-cache-status")).toBe("MISS");
    const sent = upstream.received.length;
    const second = await rerank(null, body, headers);
    expect(second.status).toBe(200);
    expect(second.headers.get("x-gateway-cache-status")).toBe("HIT");
    expect(second.body).toEqual(first.body);
    expect(upstream.received.length).toBe(sent);
    const hit = await storedLog(gateway, second.headers.get("x-gateway-log-id")!);
    expect(hit).toMatchObject({ cacheStatus: "HIT", costUsd: 0 });
    expect(hit.costSavedUsd).toBeCloseTo((tokensOf(body.query, body.documents) * 0.02) / 1e6, 12);
  });

  it("passes the body as it is to an OpenAI-format provider's /rerank (vLLM)", async () => {
    const body = { model: "BAAI/bge-reranker-v2-m3", query: QUERY, documents: TEXTS, top_n: 3 };
    const answer = await rerank({ provider: "openai-compatible", host: "/vllm/v1" }, body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(upstream.received.at(-1)!.path).toBe("/vllm/v1/rerank");
    expect(upstream.lastBody()).toEqual(body);
    expect(answer.body.results[0]).toMatchObject({ index: 1, document: { text: "Paris is the capital of France." } });
    const record = await storedLog(gateway, answer.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ provider: "openai-compatible", promptTokens: TOKENS });
  });

  it("refuses a provider without a reranker, and bad input, with a 400 naming what is wrong, before anything is sent", async () => {
    const sent = upstream.received.length;
    const anthropic = await rerank({ provider: "anthropic", host: "/anthropic/v1" }, { model: "claude", query: QUERY, documents: TEXTS });
    expect(anthropic.status).toBe(400);
    expect(anthropic.body.error).toMatchObject({ code: "invalid_request", param: "x-gateway-provider" });
    expect(anthropic.body.error.message).toContain("Anthropic");
    const amazonReranker = await rerank({ provider: "bedrock", host: "/bedrock" }, { model: "amazon.rerank-v1:0", query: QUERY, documents: TEXTS });
    expect(amazonReranker.status).toBe(400);
    expect(amazonReranker.body.error).toMatchObject({ code: "invalid_request", param: "model" });
    const noDocuments = await rerank(rows[0]!, { model: "rerank-v3.5", query: QUERY });
    expect(noDocuments.status).toBe(400);
    expect(noDocuments.body.error.param).toBe("documents");
    const noText = await rerank(rows[0]!, { model: "rerank-v3.5", query: QUERY, documents: ["a", { title: "no text" }] });
    expect(noText.status).toBe(400);
    expect(noText.body.error.param).toMatch(/^documents(\.1|\[1\])/);
    expect(upstream.received.length).toBe(sent);
  });
});
