import { describe, expect, it } from "vitest";
import { openaiSseProtocol } from "../streams/stream-protocol.ts";
import { findProvider } from "../providers/catalogue.ts";
import type { Provider } from "../providers/provider.ts";
import { jsonAnswers } from "../operation/answer-reader.ts";
import { chatAnswers } from "../families/chat/index.ts";
import { fixedUpstream, type OperationDescriptor } from "../operation/descriptor.ts";
import type { Target } from "../operation/target.ts";
import { buildUpstreamRequest } from "./upstream-request.ts";
import { GatewayError } from "../errors.ts";

const chat: OperationDescriptor = { id: "createChatCompletion", method: "POST", upstreamPath: { fixed: "/chat/completions" }, body: "json", answer: "json", answers: chatAnswers };
const embeddings: OperationDescriptor = { ...chat, id: "createEmbedding", upstreamPath: { fixed: "/embeddings" }, answers: jsonAnswers };
const passThrough: OperationDescriptor = { ...chat, id: "passThrough", method: "*", upstreamPath: { afterV1: true }, body: "json-or-as-sent" };
const credentials = { style: "bearer" as const, apiKey: "sk-1", organization: "org-1", project: null, fields: {} };

function target(provider: Provider, model: string | null = "gpt-4o-mini"): Target {
  return { provider, baseUrl: "http://127.0.0.1:9/v1/", credentials, model, virtualKeyId: null };
}

/** A provider outside the OpenAI format that serves chat only, with its own path, and signs what it sends. */
const signing: Provider = {
  id: "signing",
  name: "Signing",
  baseUrl: "http://127.0.0.1:9",
  docs: "",
  openaiFormat: false,
  operations: { createChatCompletion: { request: (body, { model }) => ({ body: { prompt: body.messages, model_id: model }, path: `/model/${model}/invoke` }) } },
  streamProtocol: openaiSseProtocol,
  authorize: async (request) => ({ ...request, headers: { ...request.headers, signature: `${request.method} ${request.url} ${String(request.body)}` } }),
  error: (status, text) => new GatewayError("upstream_error", text, { status }),
};

describe("buildUpstreamRequest", () => {
  it("sends the client's exact bytes when nothing changed them, and authorises with the bearer style", async () => {
    const raw = '{"model":"gpt-4o-mini",  "messages":[{"role":"user","content":"hi"}]}';
    const built = await buildUpstreamRequest(chat, fixedUpstream(chat), target(findProvider("openai")!), { kind: "json", value: JSON.parse(raw), raw }, false);
    expect(built.ok && built.value).toEqual({
      method: "POST",
      url: "http://127.0.0.1:9/v1/chat/completions",
      headers: { "content-type": "application/json", accept: "application/json", authorization: "Bearer sk-1", "openai-organization": "org-1" },
      body: raw,
    });
  });

  it("rewrites the model the target names and asks a stream for its usage", async () => {
    const body = { model: "@openai/gpt-4o-mini", messages: [], stream: true };
    const built = await buildUpstreamRequest(chat, fixedUpstream(chat), target(findProvider("openai")!), { kind: "json", value: body, raw: JSON.stringify(body) }, true);
    expect(built.ok && JSON.parse(built.value.body as string)).toEqual({ model: "gpt-4o-mini", messages: [], stream: true, stream_options: { include_usage: true } });
    expect(built.ok && built.value.headers.accept).toBe("text/event-stream");
    // A provider that always sends usage is not asked.
    const mistral = await buildUpstreamRequest(chat, fixedUpstream(chat), target(findProvider("mistral")!), { kind: "json", value: body }, true);
    expect(mistral.ok && JSON.parse(mistral.value.body as string)).not.toHaveProperty("stream_options");
  });

  it("passes an operation without transforms to an OpenAI-format provider as it is", async () => {
    const body = { model: "text-embedding-3-small", input: "x" };
    const built = await buildUpstreamRequest(embeddings, fixedUpstream(embeddings), target(findProvider("groq")!, "text-embedding-3-small"), { kind: "json", value: body, raw: JSON.stringify(body) }, false);
    expect(built.ok && built.value.url).toBe("http://127.0.0.1:9/v1/embeddings");
    expect(built.ok && built.value.body).toBe(JSON.stringify(body));
  });

  it("uses a provider's transform and path, then lets it sign the final request; refuses operations it has no transform for", async () => {
    const body = { model: "m-1", messages: [{ role: "user", content: "hi" }] };
    const built = await buildUpstreamRequest(chat, fixedUpstream(chat), target(signing, "m-1"), { kind: "json", value: body, raw: JSON.stringify(body) }, false);
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    expect(built.value.url).toBe("http://127.0.0.1:9/v1/model/m-1/invoke");
    expect(JSON.parse(built.value.body as string)).toEqual({ prompt: body.messages, model_id: "m-1" });
    expect(built.value.headers.signature).toBe(`POST ${built.value.url} ${built.value.body}`);

    const refused = await buildUpstreamRequest(embeddings, fixedUpstream(embeddings), target(signing, "m-1"), { kind: "json", value: { model: "m-1", input: "x" } }, false);
    expect(!refused.ok && refused.error).toMatchObject({ code: "invalid_request", status: 400, param: "x-gateway-provider" });
  });

  it("passes a body it does not parse as it arrives, with its content type", async () => {
    const stream = new Blob(["--b\r\n"]).stream();
    const built = await buildUpstreamRequest(passThrough, { method: "POST", path: "/files" }, target(findProvider("openai")!, null), { kind: "as-sent", stream, contentType: "multipart/form-data; boundary=b", length: null }, false);
    expect(built.ok && built.value.body).toBe(stream);
    expect(built.ok && built.value.headers["content-type"]).toBe("multipart/form-data; boundary=b");
    expect(built.ok && built.value.headers["content-length"]).toBeUndefined();

    const sized = await buildUpstreamRequest(passThrough, { method: "PUT", path: "/files/f-1?x=1" }, target(findProvider("openai")!, null), { kind: "as-sent", stream, contentType: "application/octet-stream", length: 5 }, false);
    expect(sized.ok && sized.value.headers["content-length"]).toBe("5");
    // The method and path are the request's, as its route resolved them, not the descriptor's.
    expect(sized.ok && [sized.value.method, sized.value.url]).toEqual(["PUT", "http://127.0.0.1:9/v1/files/f-1?x=1"]);
  });
});
