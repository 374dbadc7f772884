import { describe, expect, it } from "vitest";
import { isProviderHost } from "../catalogue.ts";
import { azureAiFoundryProvider, foundryPath } from "./index.ts";

describe("Azure AI Foundry's models inference endpoint", () => {
  it("adds the API version to every path, unless the client sent one or a field names another", () => {
    expect(foundryPath("/chat/completions", { fields: {} })).toBe("/chat/completions?api-version=2024-05-01-preview");
    expect(foundryPath("/embeddings?x=1", { fields: { azure_api_version: "2025-01-01" } })).toBe("/embeddings?x=1&api-version=2025-01-01");
    expect(foundryPath("/chat/completions?api-version=2024-08-01-preview", { fields: {} })).toBe("/chat/completions?api-version=2024-08-01-preview");
  });

  it("derives the base URL from the resource, on a host the gateway trusts", () => {
    expect(azureAiFoundryProvider.baseUrlFrom?.({ azure_resource: "my-foundry" })).toBe("https://my-foundry.services.ai.azure.com/models");
    expect(isProviderHost("my-foundry.services.ai.azure.com")).toBe(true);
  });

  it("sends the key as api-key and asks the endpoint to pass OpenAI fields to the model", async () => {
    const request = { method: "POST", url: "https://x", headers: {}, body: null };
    const credentials = { style: "bearer" as const, apiKey: "foundry-key", organization: null, project: null, fields: {} };
    expect((await azureAiFoundryProvider.authorize(request, credentials)) as object).toMatchObject({ headers: { "api-key": "foundry-key", "extra-parameters": "pass-through" } });
    const entra = await azureAiFoundryProvider.authorize(request, { ...credentials, fields: { azure_auth: "entra" } });
    expect(entra).toMatchObject({ headers: { authorization: "Bearer foundry-key" } });
  });
});
