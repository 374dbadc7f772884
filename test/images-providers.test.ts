/**
 * `POST /v1/images/generations` on the Gemini API and Vertex AI (Imagen `:predict`) and Bedrock
 * (Nova Canvas and Titan Image Generator through InvokeModel), through the official openai client
 * against aimock (the Gemini API's `:predict`) and the stand-in that follows the others' documented
 * shapes (`support/beyond-chat-upstream.ts`): the answer
 * as OpenAI's base64 images, the upstream request in the provider's shape, the log's cost per
 * image from the price table, and a 400 naming field and provider for what cannot be mapped
 * (a `url` answer, a size, a quality).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { gatewayContractProblems } from "./support/contract.ts";
import { call, startGateway, startUpstream, storedLogOf, type RunningGateway } from "./support/harness.ts";
import { startGoogleTokenServer, type GoogleTokenServer } from "./support/google-token-server.ts";
import { PIXEL_PNG_BASE64, startBeyondChatUpstream } from "./support/beyond-chat-upstream.ts";

let gateway: RunningGateway;
let aimock: LLMock;
let standIn: Awaited<ReturnType<typeof startBeyondChatUpstream>>;
let tokens: GoogleTokenServer;

beforeAll(async () => {
  tokens = await startGoogleTokenServer();
  tokens.answer({ accessToken: "ya29.images", expiresIn: 3600 });
  standIn = await startBeyondChatUpstream();
  aimock = await startUpstream();
  aimock.onImage("a gemini sunrise", { images: [{ b64Json: PIXEL_PNG_BASE64 }, { b64Json: PIXEL_PNG_BASE64 }] });
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await standIn?.close();
  await aimock?.stop();
  await tokens?.close();
});

type Headers = Record<string, string>;

const vertexHeaders = (): Headers => ({ "x-gateway-provider": "vertex", "x-gateway-custom-host": standIn.url, "x-gateway-vertex-project": "images-project", "x-gateway-vertex-location": "us-central1" });
const bedrockHeaders = (): Headers => ({
  "x-gateway-provider": "bedrock",
  "x-gateway-custom-host": standIn.base,
  "x-gateway-aws-access-key-id": "AKIAIOSFODNN7EXAMPLE",
  "x-gateway-aws-secret-access-key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYIMAGESKEY",
  "x-gateway-aws-region": "us-west-2",
});
const vertexKey = (): string => tokens.account("images@images-project.iam.gserviceaccount.com").keyJson;

function client(headers: Headers, apiKey = "upstream-key"): OpenAI {
  return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey, maxRetries: 0, defaultHeaders: { "x-gateway-api-key": gateway.adminKey, ...headers } });
}

const logOf = (response: Pick<Response, "headers">) => storedLogOf(gateway, response);

async function refused(headers: Headers, body: unknown, apiKey = "upstream-key"): Promise<{ status: number; message: string; param: string | null }> {
  const answer = await call(gateway, "POST", "/v1/images/generations", { body, headers: { authorization: `Bearer ${apiKey}`, ...headers } });
  return { status: answer.status, message: answer.body?.error?.message, param: answer.body?.error?.param ?? null };
}

describe("images on the Gemini API (Imagen)", () => {
  it("predicts through aimock's :predict and prices each image", async () => {
    const { data, response } = await client({ "x-gateway-provider": "gemini", "x-gateway-custom-host": `${aimock.url}/v1beta` })
      .images.generate({ model: "imagen-4.0-fast-generate-001", prompt: "a gemini sunrise", n: 2, size: "1024x1024" })
      .withResponse();
    expect(data.data).toEqual([{ b64_json: PIXEL_PNG_BASE64 }, { b64_json: PIXEL_PNG_BASE64 }]);
    expect(aimock.getLastRequest()?.path).toBe("/v1beta/models/imagen-4.0-fast-generate-001:predict");
    expect(await logOf(response)).toMatchObject({ provider: "gemini", costUsd: 0.04 });
  });
});

describe("images on Vertex AI (Imagen)", () => {
  it("predicts n images at the size's aspect ratio, answers them as b64_json, and prices each image", async () => {
    const { data, response } = await client(vertexHeaders(), vertexKey())
      .images.generate({ model: "imagen-4.0-generate-001", prompt: "a lighthouse at dusk", n: 2, size: "1408x768" as "1024x1024", response_format: "b64_json" })
      .withResponse();
    expect(data.data).toEqual([{ b64_json: PIXEL_PNG_BASE64 }, { b64_json: PIXEL_PNG_BASE64 }]);
    const seen = standIn.received.at(-1)!;
    expect(seen.path).toBe("/v1/projects/images-project/locations/us-central1/publishers/google/models/imagen-4.0-generate-001:predict");
    expect(seen.headers.authorization).toBe("Bearer ya29.images");
    expect(standIn.lastBody()).toEqual({ instances: [{ prompt: "a lighthouse at dusk" }], parameters: { sampleCount: 2, aspectRatio: "16:9" } });
    expect(await logOf(response)).toMatchObject({ route: "createImage", provider: "vertex", costUsd: 0.08, costNote: null });
  });

  it("sends a square size as 1:1 and png as the output mime type; the answer matches the document", async () => {
    const answer = await call(gateway, "POST", "/v1/images/generations", {
      body: { model: "imagen-3.0-fast-generate-001", prompt: "a red cube", size: "1024x1024", output_format: "png" },
      headers: { authorization: `Bearer ${vertexKey()}`, ...vertexHeaders() },
    });
    expect(answer.status).toBe(200);
    expect(gatewayContractProblems("createImage", 200, answer.body)).toEqual([]);
    expect(standIn.lastBody()).toEqual({ instances: [{ prompt: "a red cube" }], parameters: { sampleCount: 1, aspectRatio: "1:1", outputOptions: { mimeType: "image/png" } } });
    expect(await logOf(answer)).toMatchObject({ costUsd: 0.02 });
  });

  it("refuses a url answer, a size with no Imagen aspect ratio, a quality and too many images, naming field and provider", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ response_format: "url" }, "response_format"],
      [{ size: "1792x1024" }, "size"],
      [{ quality: "hd" }, "quality"],
      [{ n: 5 }, "n"],
      [{ style: "vivid" }, "style"],
    ];
    for (const [fields, param] of cases) {
      const answer = await refused(vertexHeaders(), { model: "imagen-4.0-generate-001", prompt: "x", ...fields }, vertexKey());
      expect(answer, param).toMatchObject({ status: 400, param });
      expect(answer.message).toContain("Vertex AI");
    }
  });
});

describe("images on Bedrock", () => {
  it("makes a TEXT_IMAGE task for Nova Canvas with width, height and premium quality, priced by size tier and quality", async () => {
    const { data, response } = await client(bedrockHeaders())
      .images.generate({ model: "amazon.nova-canvas-v1:0", prompt: "a paper boat", n: 2, size: "1280x720" as "1024x1024", quality: "hd" })
      .withResponse();
    expect(data.data).toEqual([{ b64_json: PIXEL_PNG_BASE64 }, { b64_json: PIXEL_PNG_BASE64 }]);
    const seen = standIn.received.at(-1)!;
    expect(seen.path).toBe("/model/amazon.nova-canvas-v1%3A0/invoke");
    expect(String(seen.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/us-west-2\/bedrock\/aws4_request/);
    expect(standIn.lastBody()).toEqual({
      taskType: "TEXT_IMAGE",
      textToImageParams: { text: "a paper boat" },
      imageGenerationConfig: { numberOfImages: 2, width: 1280, height: 720, quality: "premium" },
    });
    expect(await logOf(response)).toMatchObject({ provider: "bedrock", costUsd: 0.16 });
  });

  it("makes Titan Image Generator images at 1024x1024 by default, priced at its standard price", async () => {
    const { data, response } = await client(bedrockHeaders()).images.generate({ model: "amazon.titan-image-generator-v2:0", prompt: "a green hill" }).withResponse();
    expect(data.data).toHaveLength(1);
    expect(standIn.lastBody()).toMatchObject({ imageGenerationConfig: { numberOfImages: 1, width: 1024, height: 1024, quality: "standard" } });
    expect(await logOf(response)).toMatchObject({ costUsd: 0.01 });
  });

  it("refuses sizes, qualities and models it cannot serve, naming field and provider", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ model: "amazon.nova-canvas-v1:0", size: "100x100" }, "size"],
      [{ model: "amazon.nova-canvas-v1:0", size: "4096x512" }, "size"],
      [{ model: "amazon.titan-image-generator-v2:0", size: "1792x1024" }, "size"],
      [{ model: "amazon.nova-canvas-v1:0", quality: "low" }, "quality"],
      [{ model: "amazon.nova-canvas-v1:0", response_format: "url" }, "response_format"],
      [{ model: "amazon.nova-canvas-v1:0", n: 6 }, "n"],
      [{ model: "stability.sd3-5-large-v1:0" }, "model"],
    ];
    for (const [fields, param] of cases) {
      const answer = await refused(bedrockHeaders(), { prompt: "x", ...fields });
      expect(answer, param).toMatchObject({ status: 400, param });
      expect(answer.message).toContain("Bedrock");
    }
  });
});
