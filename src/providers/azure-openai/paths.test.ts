import { describe, expect, it } from "vitest";
import { GatewayError } from "../../errors.ts";
import { authorizeAzure, azureOpenAiProvider } from "./index.ts";
import { azurePath } from "./paths.ts";

describe("Azure OpenAI paths", () => {
  const at = (path: string, model: string | null, fields: Record<string, string> = {}) => azurePath(path, { model, fields });

  it("puts deployment-scoped operations under their deployment, with the default API version", () => {
    expect(at("/chat/completions", "gpt-4o-prod")).toBe("/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21");
    expect(at("/embeddings", "emb", { azure_api_version: "2025-04-01-preview" })).toBe("/openai/deployments/emb/embeddings?api-version=2025-04-01-preview");
    expect(at("/audio/transcriptions", null, { azure_deployment: "whisper" })).toBe("/openai/deployments/whisper/audio/transcriptions?api-version=2024-10-21");
    // A stored deployment wins over the request's model.
    expect(at("/images/generations", "dall-e-3", { azure_deployment: "images-prod" })).toBe("/openai/deployments/images-prod/images/generations?api-version=2024-10-21");
  });

  it("puts resource-wide operations under /openai, keeping the client's query", () => {
    expect(at("/files?purpose=batch&limit=2", null)).toBe("/openai/files?purpose=batch&limit=2&api-version=2024-10-21");
    expect(at("/fine_tuning/jobs/ftjob-1/events", null)).toBe("/openai/fine_tuning/jobs/ftjob-1/events?api-version=2024-10-21");
    expect(at("/batches?api-version=2025-01-01-preview", null)).toBe("/openai/batches?api-version=2025-01-01-preview");
  });

  it("uses the v1 API's paths without an api-version when asked", () => {
    expect(at("/chat/completions", "gpt-4o-prod", { azure_api_version: "v1" })).toBe("/openai/v1/chat/completions");
    expect(at("/responses?include=x", null, { azure_api_version: "v1" })).toBe("/openai/v1/responses?include=x");
  });

  it("refuses a deployment-scoped operation without a deployment", () => {
    const refused = at("/audio/speech", null);
    expect(refused).toBeInstanceOf(GatewayError);
    expect((refused as GatewayError).param).toBe("model");
  });

  it("derives the base URL from the resource and authorises with api-key or an Entra token", () => {
    expect(azureOpenAiProvider.baseUrlFrom?.({ azure_resource: "my-res" })).toBe("https://my-res.openai.azure.com");
    const request = { method: "POST", url: "https://x", headers: {}, body: null };
    const credentials = { style: "bearer" as const, apiKey: "azure-key-1", organization: null, project: null, fields: {} };
    expect(authorizeAzure(request, credentials).headers).toEqual({ "api-key": "azure-key-1" });
    expect(authorizeAzure(request, { ...credentials, fields: { azure_auth: "entra" } }).headers).toEqual({ authorization: "Bearer azure-key-1" });
  });
});
