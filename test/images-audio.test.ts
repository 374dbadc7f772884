import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI, { toFile } from "openai";
import { gatewayContractProblems } from "./support/contract.ts";
import { startRecordingUpstream } from "./support/recording-upstream.ts";
import { call, openaiClient, startGateway, startUpstream, storedLog, upstreamHeaders, type RunningGateway } from "./support/harness.ts";

let gateway: RunningGateway;
let upstream: LLMock;
/** Bytes aimock answers the speech request with: every byte value, so any re-encoding shows. */
const audio = Buffer.from(Array.from({ length: 4096 }, (_, i) => i % 256));
const wav = Buffer.concat([Buffer.from("RIFF"), Buffer.alloc(2000, 7)]);

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onImage("a lighthouse at dusk", { images: [{ url: "https://images.example/1.png" }, { url: "https://images.example/2.png" }] });
  upstream.onImage("add a red boat", { image: { b64Json: Buffer.from("edited").toString("base64") } });
  upstream.onSpeech("read this aloud", { audio: audio.toString("base64"), format: "mp3" });
  upstream.onTranscription({ transcription: { text: "hello from the recording", usage: { type: "duration", seconds: 90 } } });
  upstream.onTranslation({ transcription: { text: "hello in english" } });
  upstream.onModerate("something harmless", { flagged: false, categories: { violence: false } });
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
});

describe("images", () => {
  it("generates images, logs the operation and prices each image by model, size and quality", async () => {
    const client = openaiClient(gateway, upstream);
    const { data, response } = await client.images
      .generate({ model: "dall-e-3", prompt: "a lighthouse at dusk", size: "1792x1024", quality: "hd", user: "painter-1" })
      .withResponse();
    expect(data.data?.map((image) => image.url)).toEqual(["https://images.example/1.png", "https://images.example/2.png"]);
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "createImage", path: "/v1/images/generations", provider: "openai", model: "dall-e-3", status: 200, user: "painter-1" });
    expect(JSON.parse(record.requestBody!)).toMatchObject({ prompt: "a lighthouse at dusk", size: "1792x1024" });
    // Two hd 1792x1024 images of dall-e-3 at $0.12 each.
    expect(record.costUsd).toBeCloseTo(0.24, 10);
  });

  it("edits an image from a real multipart upload, streamed upstream and logged as metadata", async () => {
    const client = openaiClient(gateway, upstream);
    const image = await toFile(Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(5000, 1)]), "harbour.png", { type: "image/png" });
    const { data, response } = await client.images.edit({ model: "dall-e-2", image, prompt: "add a red boat", size: "512x512" }).withResponse();
    expect(Buffer.from(data.data![0]!.b64_json!, "base64").toString()).toBe("edited");
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "createImageEdit", path: "/v1/images/edits", model: "dall-e-2", status: 200 });
    const logged = JSON.parse(record.requestBody!);
    expect(logged.content_type).toMatch(/^multipart\/form-data; boundary=/);
    expect(logged.size_bytes).toBeGreaterThan(5000);
    expect(record.requestBodyBytes).toBe(logged.size_bytes);
    expect(logged.fields).toMatchObject({ model: "dall-e-2", prompt: "add a red boat", size: "512x512" });
    expect(logged.files).toEqual([{ field: "image", filename: "harbour.png", content_type: "image/png" }]);
    expect(record.requestBody).not.toContain("PNG");
    expect(record.costUsd).toBeCloseTo(0.018, 10);
  });

  it("edits from image references sent as JSON, validated and logged as sent", async () => {
    // aimock reads edits as forms only: a recording upstream answers this one.
    const recorder = await startRecordingUpstream(() => ({ created: 1, data: [{ b64_json: "ZWRpdGVk" }] }));
    const client = new OpenAI({
      baseURL: `${gateway.url}/v1`,
      apiKey: "sk-upstream",
      maxRetries: 0,
      defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": recorder.url },
    });
    const body = { model: "dall-e-2", images: [{ image_url: "https://images.example/harbour.png" }], prompt: "add a red boat", size: "512x512" };
    const { data, response } = await client.post<{ data: Array<{ b64_json?: string }> }>("/images/edits", { body }).withResponse().finally(() => recorder.close());
    expect(data.data).toEqual([{ b64_json: "ZWRpdGVk" }]);
    expect(recorder.received.at(-1)!.headers["content-type"]).toMatch(/^application\/json/);
    expect(JSON.parse(recorder.received.at(-1)!.body.toString())).toEqual(body);
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "createImageEdit", model: "dall-e-2", status: 200 });
    expect(JSON.parse(record.requestBody!)).toEqual(body);
    expect(record.costUsd).toBeCloseTo(0.018, 10);

    const missing = await call(gateway, "POST", "/v1/images/edits", { body: { prompt: "no images" }, headers: { "x-gateway-provider": "openai" } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: "invalid_request", param: "images" });
  });

  it("refuses a generation without a prompt, or with a malformed size, with 400 naming the field", async () => {
    const headers = upstreamHeaders(gateway, upstream);
    const missing = await call(gateway, "POST", "/v1/images/generations", { body: { model: "dall-e-3" }, headers });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: "invalid_request", param: "prompt" });
    expect(gatewayContractProblems("createImage", missing.status, missing.body)).toEqual([]);
    const size = await call(gateway, "POST", "/v1/images/generations", { body: { model: "dall-e-3", prompt: "x", size: "big" }, headers });
    expect(size.status).toBe(400);
    expect(size.body.error.param).toBe("size");
  });
});

describe("audio", () => {
  it("streams speech back byte for byte; the log keeps its type and size, never the audio, and prices the characters", async () => {
    const client = openaiClient(gateway, upstream);
    const response = await client.audio.speech.create({ model: "tts-1", input: "read this aloud", voice: "alloy" });
    expect(response.headers.get("content-type")).toBe("audio/mpeg");
    expect(Buffer.from(await response.arrayBuffer()).equals(audio)).toBe(true);
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "createSpeech", path: "/v1/audio/speech", model: "tts-1", status: 200, responseBodyBytes: audio.byteLength });
    expect(JSON.parse(record.responseBody!)).toEqual({ content_type: "audio/mpeg", size_bytes: audio.byteLength });
    // 15 characters of tts-1 at $15 per million.
    expect(record.costUsd).toBeCloseTo((15 * 15) / 1e6, 12);
  });

  it("refuses speech without a voice with 400 naming the field", async () => {
    const missing = await call(gateway, "POST", "/v1/audio/speech", { body: { model: "tts-1", input: "hi" }, headers: upstreamHeaders(gateway, upstream) });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: "invalid_request", param: "voice" });
  });

  it("transcribes a real multipart upload; the log keeps the upload's metadata and prices the minutes the answer reports", async () => {
    const client = openaiClient(gateway, upstream);
    const file = await toFile(wav, "meeting.wav", { type: "audio/wav" });
    const { data, response } = await client.audio.transcriptions.create({ model: "whisper-1", file, language: "en" }).withResponse();
    expect(data.text).toBe("hello from the recording");
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "createTranscription", path: "/v1/audio/transcriptions", model: "whisper-1", status: 200 });
    const logged = JSON.parse(record.requestBody!);
    expect(logged).toMatchObject({ fields: { model: "whisper-1", language: "en" }, files: [{ field: "file", filename: "meeting.wav", content_type: "audio/wav" }] });
    expect(logged.size_bytes).toBeGreaterThan(wav.byteLength);
    expect(record.requestBody).not.toContain("RIFF");
    expect(JSON.parse(record.responseBody!).text).toBe("hello from the recording");
    // 90 seconds of whisper-1 at $0.006 a minute.
    expect(record.costUsd).toBeCloseTo(0.009, 10);
  });

  it("translates a real multipart upload; without a duration in the answer the cost is unknown", async () => {
    const client = openaiClient(gateway, upstream);
    const file = await toFile(wav, "bonjour.wav", { type: "audio/wav" });
    const { data, response } = await client.audio.translations.create({ model: "whisper-1", file }).withResponse();
    expect(data.text).toBe("hello in english");
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "createTranslation", model: "whisper-1", status: 200, costUsd: null });
    expect(JSON.parse(record.requestBody!).files[0].filename).toBe("bonjour.wav");
  });

  it("refuses guardrails on an upload (400) before anything is sent upstream", async () => {
    const guardrail = await call(gateway, "POST", "/v1/guardrails", {
      body: { name: "no secrets in uploads", checks: [{ type: "contains", params: { words: ["password"], operator: "none" } }], action: { deny: true } },
    });
    expect(guardrail.status).toBe(201);
    const client = openaiClient(gateway, upstream, { "x-gateway-config": JSON.stringify({ input_guardrails: [guardrail.body.slug] }) });
    const file = await toFile(wav, "meeting.wav", { type: "audio/wav" });
    const refused = await client.audio.transcriptions.create({ model: "whisper-1", file }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400, error: expect.objectContaining({ param: "x-gateway-config" }) });
  });
});

describe("moderations", () => {
  it("classifies text through the upstream and logs it without cost", async () => {
    const client = openaiClient(gateway, upstream);
    const { data, response } = await client.moderations.create({ model: "omni-moderation-latest", input: "something harmless" }).withResponse();
    expect(data.results[0]?.flagged).toBe(false);
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "createModeration", path: "/v1/moderations", model: "omni-moderation-latest", status: 200, costUsd: null });
    expect(JSON.parse(record.requestBody!)).toEqual({ model: "omni-moderation-latest", input: "something harmless" });
  });

  it("refuses a moderation without input with 400 naming the field", async () => {
    const missing = await call(gateway, "POST", "/v1/moderations", { body: { model: "omni-moderation-latest" }, headers: upstreamHeaders(gateway, upstream) });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: "invalid_request", param: "input" });
  });
});
