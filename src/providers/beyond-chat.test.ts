import { describe, expect, it } from "vitest";
import { base64Vector, embeddingsAnswer } from "./embeddings.ts";
import { bedrockEmbeddings } from "./bedrock/embeddings.ts";
import { bedrockImages } from "./bedrock/images.ts";
import { geminiEmbeddings } from "./gemini/embeddings.ts";
import { imagenImages } from "./gemini/imagen.ts";
import type { JsonObject, OperationTransforms } from "./provider.ts";

const request = (transforms: OperationTransforms, body: JsonObject, model: string) => transforms.request!(body, { model, stream: false });
const paramOf = (result: ReturnType<typeof request>): string | null | undefined => ("error" in result ? result.error.param : undefined);

describe("embeddings answers", () => {
  it("encodes floats as little-endian float32 base64 when the client asked, as OpenAI does", () => {
    expect(base64Vector([1, -2])).toBe(Buffer.from(new Float32Array([1, -2]).buffer).toString("base64"));
    const answer = embeddingsAnswer([[0.5]], { clientBody: { input: "x", encoding_format: "base64" }, model: "m" }, null, "P");
    expect(answer).toEqual({ object: "list", data: [{ object: "embedding", index: 0, embedding: base64Vector([0.5]) }], model: "m" });
  });

  it("reads Gemini's single and batch answers, with usage only when reported", () => {
    expect(geminiEmbeddings.response!({ embedding: { values: [1, 2] } }, { clientBody: { input: "a" }, model: "g" })).toMatchObject({ data: [{ embedding: [1, 2] }] });
    const batch = { clientBody: { input: ["a", "b"] }, model: "g" };
    expect(geminiEmbeddings.response!({ embeddings: [{ values: [1] }, { values: [2] }], usageMetadata: { promptTokenCount: 4 } }, batch)).toMatchObject({
      data: [{ index: 0, embedding: [1] }, { index: 1, embedding: [2] }],
      usage: { prompt_tokens: 4, total_tokens: 4 },
    });
  });

  it("reads Bedrock's Titan and Cohere answers", () => {
    const context = { clientBody: { input: ["a", "b"] }, model: "b" };
    expect(bedrockEmbeddings.response!({ embedding: [1], inputTextTokenCount: 3 }, { clientBody: { input: "a" }, model: "b" })).toMatchObject({ usage: { prompt_tokens: 3 } });
    expect(bedrockEmbeddings.response!({ embeddings: [[1], [2]], response_type: "embeddings_floats" }, context)).not.toHaveProperty("usage");
    expect(bedrockEmbeddings.response!({ embeddings: { float: [[1], [2]] } }, context)).toMatchObject({ data: [{ embedding: [1] }, { embedding: [2] }] });
  });

  it("refuses what Titan cannot take", () => {
    expect(paramOf(request(bedrockEmbeddings, { input: ["a", "b"] }, "amazon.titan-embed-text-v2:0"))).toBe("input");
    expect(paramOf(request(bedrockEmbeddings, { input: "a", dimensions: 512 }, "amazon.titan-embed-text-v1"))).toBe("dimensions");
    expect(request(bedrockEmbeddings, { input: "a", dimensions: 512 }, "us.amazon.titan-embed-text-v2:0")).toMatchObject({ body: { inputText: "a", dimensions: 512 } });
  });
});

describe("image requests", () => {
  const imagen = imagenImages("Imagen");

  it("maps exact aspect ratios and Imagen's own sizes, and refuses others", () => {
    expect(request(imagen, { prompt: "p", size: "1280x720" }, "imagen-3.0-generate-002")).toMatchObject({ body: { parameters: { aspectRatio: "16:9" } } });
    expect(request(imagen, { prompt: "p", size: "896x1280" }, "imagen-3.0-generate-002")).toMatchObject({ body: { parameters: { aspectRatio: "3:4" } } });
    expect(paramOf(request(imagen, { prompt: "p", size: "1536x1024" }, "imagen-3.0-generate-002"))).toBe("size");
    expect(paramOf(request(imagen, { prompt: "p", response_format: "url" }, "imagen-4.0-generate-001"))).toBe("response_format");
    expect(paramOf(request(imagen, { prompt: "p" }, "gemini-2.5-flash-image"))).toBe("model");
  });

  it("checks Nova Canvas sizes by its rules and Titan's by its list", () => {
    expect(request(bedrockImages, { prompt: "p", size: "2048x2048" }, "amazon.nova-canvas-v1:0")).toMatchObject({ body: { imageGenerationConfig: { width: 2048, height: 2048 } } });
    expect(paramOf(request(bedrockImages, { prompt: "p", size: "2064x2048" }, "amazon.nova-canvas-v1:0"))).toBe("size");
    expect(paramOf(request(bedrockImages, { prompt: "p", size: "330x330" }, "amazon.nova-canvas-v1:0"))).toBe("size");
    expect(request(bedrockImages, { prompt: "p", size: "1173x640" }, "amazon.titan-image-generator-v2:0")).toMatchObject({ body: { imageGenerationConfig: { width: 1173 } } });
    expect(paramOf(request(bedrockImages, { prompt: "p", size: "1024x768" }, "amazon.titan-image-generator-v2:0"))).toBe("size");
  });
});
