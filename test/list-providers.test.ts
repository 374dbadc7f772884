/**
 * `GET /v1/providers` through the real gateway: every provider of the catalogue, with what its
 * entry and transforms say, for any gateway key; checked against the document's schema.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROVIDERS } from "../src/providers/catalogue.ts";
import { call, startGateway, type RunningGateway } from "./support/harness.ts";
import { gatewayContractProblems } from "./support/contract.ts";

let gateway: RunningGateway;
let serviceKey: string;

beforeAll(async () => {
  gateway = await startGateway();
  const created = await call(gateway, "POST", "/v1/api-keys", { body: { name: "service", role: "service" } });
  expect(created.status).toBe(201);
  serviceKey = created.body.key;
});

afterAll(async () => {
  await gateway?.close();
});

interface ProviderInfo {
  id: string;
  name: string;
  family: string;
  format: "openai" | "translated";
  base_url: string | null;
  base_url_template: string | null;
  custom_host_needs_path: boolean;
  docs: string;
  operations: string[];
  chat: { stream_usage: string; tools: boolean; refused_fields: string[]; dropped_fields: string[] } | null;
  credential_fields: Array<{ name: string; header: string; secret: boolean; description: string }>;
}

async function listed(key: string): Promise<ProviderInfo[]> {
  const answer = await call(gateway, "GET", "/v1/providers", { key });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(gatewayContractProblems("listProviders", 200, answer.body)).toEqual([]);
  expect(answer.body).toMatchObject({ object: "list", total: answer.body.data.length });
  return answer.body.data as ProviderInfo[];
}

describe("GET /v1/providers", () => {
  it("lists every provider of the catalogue, at least 40, to a service key as to an admin key", async () => {
    const providers = await listed(serviceKey);
    expect(providers.map((provider) => provider.id)).toEqual([...PROVIDERS.keys()]);
    expect(providers.length).toBeGreaterThanOrEqual(40);
    expect(await listed(gateway.adminKey)).toEqual(providers);
  });

  it("refuses a request without a gateway key", async () => {
    const answer = await call(gateway, "GET", "/v1/providers", { key: null });
    expect(answer.status).toBe(401);
    expect(answer.body.error).toMatchObject({ type: "authentication_error" });
  });

  it("says how each provider is reached and what its chat completions take", async () => {
    const byId = new Map((await listed(serviceKey)).map((provider) => [provider.id, provider]));
    // The OpenAI-format catalogue is one family; a provider with its own folder is a family of its own.
    const families = [...new Set([...byId.values()].map((provider) => provider.family))];
    expect(families).toEqual(["openai", "anthropic", "gemini", "vertex", "bedrock", "azure-openai", "azure-ai-foundry", "cohere", "jina", "voyage"]);
    expect(byId.get("groq")).toMatchObject({
      family: "openai",
      format: "openai",
      base_url: "https://api.groq.com/openai/v1",
      custom_host_needs_path: true,
      docs: "https://console.groq.com/docs/openai",
      operations: ["createChatCompletion"],
      chat: { stream_usage: "stream_options", tools: true, refused_fields: ["logprobs", "logit_bias", "top_logprobs", "messages[].name", "n=1"], dropped_fields: [] },
      credential_fields: [],
    });
    expect(byId.get("mistral")?.chat?.stream_usage).toBe("always");
    expect(byId.get("perplexity")).toMatchObject({ custom_host_needs_path: false });
    expect(byId.get("cloudflare-workers-ai")).toMatchObject({
      base_url: null,
      base_url_template: "https://api.cloudflare.com/client/v4/accounts/{cloudflare_account_id}/ai/v1",
      credential_fields: [{ name: "cloudflare_account_id", header: "x-gateway-cloudflare-account-id", secret: false }],
    });
    expect(byId.get("azure-ai-foundry")).toMatchObject({ format: "openai", base_url_template: "https://{azure_resource}.services.ai.azure.com/models" });
    const anthropic = byId.get("anthropic")!;
    expect(anthropic).toMatchObject({ format: "translated", base_url: "https://api.anthropic.com/v1", chat: { stream_usage: "translated", tools: true, refused_fields: [] } });
    // The Responses API reaches it through its chat transforms.
    expect(anthropic.operations).toEqual(expect.arrayContaining(["createChatCompletion", "createResponse"]));
    const bedrock = byId.get("bedrock")!;
    expect(bedrock.base_url_template).toBe("https://bedrock-runtime.{aws_region}.amazonaws.com");
    // Operations beyond chat are listed from each provider's transforms.
    expect(bedrock.operations).toEqual(expect.arrayContaining(["createChatCompletion", "createEmbedding", "createImage", "createRerank"]));
    expect(byId.get("gemini")?.operations).toEqual(expect.arrayContaining(["createChatCompletion", "createEmbedding", "createImage"]));
    expect(byId.get("vertex")?.operations).toEqual(expect.arrayContaining(["createChatCompletion", "createEmbedding", "createImage"]));
    const cohere = byId.get("cohere")!;
    expect(cohere).toMatchObject({ format: "translated", chat: { stream_usage: "translated", tools: true } });
    expect(cohere.operations).toEqual(expect.arrayContaining(["createChatCompletion", "createResponse", "createEmbedding", "createRerank"]));
    expect(cohere.operations).not.toContain("createImage");
    expect(anthropic.operations).not.toContain("createEmbedding");
    // A secret field is marked so; its value is never part of the list.
    expect(bedrock.credential_fields.find((field) => field.name === "aws_secret_access_key")).toMatchObject({ secret: true, header: "x-gateway-aws-secret-access-key" });
  });
});
