import { describe, expect, it } from "vitest";
import { batchEmbedContentsFromEmbeddings, embedContentFromEmbeddings, embeddingsRequestFromBatch, embeddingsRequestFromEmbedContent } from "./embeddings.ts";

describe("Gemini's embedding calls as OpenAI embeddings", () => {
  it("maps one content and a batch, in order, with their dimensions", () => {
    expect(embeddingsRequestFromEmbedContent({ content: { parts: [{ text: "hello " }, { text: "world" }] }, taskType: "RETRIEVAL_QUERY", outputDimensionality: 8 }, "text-embedding-3-small")).toEqual({
      ok: true,
      value: { model: "text-embedding-3-small", input: "hello world", encoding_format: "float", dimensions: 8 },
    });
    const batch = { requests: [{ model: "models/m", content: { parts: [{ text: "a" }] } }, { content: { parts: [{ text: "b" }] } }] };
    expect(embeddingsRequestFromBatch(batch, "m")).toEqual({ ok: true, value: { model: "m", input: ["a", "b"], encoding_format: "float" } });
  });

  it("refuses what one embeddings call cannot hold, naming the field", () => {
    const refused = (result: { ok: boolean; error?: unknown }) => (result.ok ? null : result.error);
    expect(refused(embeddingsRequestFromEmbedContent({ content: { parts: [{ inlineData: { mimeType: "image/png", data: "AA" } }] } }, "m"))).toMatchObject({ status: 400, param: "content.parts.0" });
    expect(refused(embeddingsRequestFromBatch({ requests: [{ model: "models/other", content: { parts: [{ text: "a" }] } }] }, "m"))).toMatchObject({ param: "requests.0.model" });
    expect(
      refused(embeddingsRequestFromBatch({ requests: [{ content: { parts: [{ text: "a" }] }, outputDimensionality: 4 }, { content: { parts: [{ text: "b" }] } }] }, "m")),
    ).toMatchObject({ param: "requests.1.outputDimensionality" });
  });

  it("answers in Google's shape with the usage as usageMetadata; a base64 vector is decoded", () => {
    const answer = { object: "list", data: [{ index: 1, embedding: [0.5] }, { index: 0, embedding: Buffer.from(new Float32Array([0.25, -1]).buffer).toString("base64") }], usage: { prompt_tokens: 6, total_tokens: 6 } };
    expect(batchEmbedContentsFromEmbeddings(answer)).toEqual({ embeddings: [{ values: [0.25, -1] }, { values: [0.5] }], usageMetadata: { promptTokenCount: 6, totalTokenCount: 6 } });
    expect(embedContentFromEmbeddings({ data: [{ index: 0, embedding: [0.1, 0.2] }] })).toEqual({ embedding: { values: [0.1, 0.2] } });
  });
});
