import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { call, openaiClient, startGateway, startUpstream, storedLog, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { startRecordingUpstream, type ReceivedRequest, type RecordingUpstream } from "./support/recording-upstream.ts";

/** Video jobs as documented operations: priced once per job, per second of video; content relayed byte for byte. */

let gateway: RunningGateway;
let upstream: LLMock;
let recorder: RecordingUpstream;

/** Every byte value with a CRLF inside, as a video container would hold them. */
const MP4 = Buffer.concat([Buffer.from("\0\0\0\x18ftypmp42"), Buffer.from(Array.from({ length: 256 }, (_, index) => index)), Buffer.from("\r\n\r\n")]);

const job = (id: string, fields: Record<string, unknown>) => ({ id, object: "video", created_at: 1, progress: 0, prompt: "a cat", ...fields });

function answer(request: ReceivedRequest): object {
  const path = request.path.split("?")[0]!;
  if (path === "/v1/videos" && request.method === "POST") return job("video_123", { model: "sora-2-pro", status: "queued", seconds: "8", size: "1792x1024" });
  if (path === "/v1/videos") return { object: "list", data: [job("video_123", { model: "sora-2-pro", status: "completed", seconds: "8", size: "1792x1024" })], first_id: "video_123", last_id: "video_123", has_more: false };
  if (path === "/v1/videos/video_123/remix") return job("video_456", { model: "sora-2", status: "queued", seconds: "4", size: "1280x720", remixed_from_video_id: "video_123" });
  if (path === "/v1/videos/video_123/content") return { body: MP4, headers: { "content-type": "video/mp4" } };
  if (request.method === "DELETE") return { id: "video_123", object: "video.deleted", deleted: true };
  return job("video_123", { model: "sora-2-pro", status: "completed", progress: 100, seconds: "8", size: "1792x1024" });
}

beforeAll(async () => {
  upstream = await startUpstream();
  recorder = await startRecordingUpstream(answer);
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await recorder?.close();
});

function recorderClient(): OpenAI {
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: UPSTREAM_KEY,
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": recorder.url },
  });
}

describe("videos", () => {
  it("creates a job from a multipart form streamed upstream, and prices it per second by model and size", async () => {
    const client = recorderClient();
    const { data: video, response } = await client.videos.create({ model: "sora-2-pro", prompt: "a cat", seconds: "8", size: "1792x1024" }).withResponse();
    expect(video).toMatchObject({ id: "video_123", status: "queued", seconds: "8" });
    const sent = recorder.received.at(-1)!;
    expect(sent).toMatchObject({ method: "POST", path: "/v1/videos" });
    expect(sent.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(sent.body.toString()).toContain('name="prompt"\r\n\r\na cat\r\n');
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "createVideo", method: "POST", path: "/v1/videos", provider: "openai", model: "sora-2-pro", status: 200 });
    expect(JSON.parse(record.requestBody!)).toMatchObject({ fields: { model: "sora-2-pro", seconds: "8", size: "1792x1024" } });
    // 8 seconds of sora-2-pro at 1792x1024, $0.50 a second.
    expect(record.costUsd).toBeCloseTo(4, 10);
  });

  it("prices from the form's fields when the upstream's answer leaves them out (aimock answers id and status only)", async () => {
    upstream.onVideo("a dog on a skateboard", { video: { id: "video_mock", status: "processing" } });
    const client = openaiClient(gateway, upstream);
    const { data: video, response } = await client.videos.create({ model: "sora-2", prompt: "a dog on a skateboard", seconds: "12", size: "1280x720" }).withResponse();
    expect(video).toMatchObject({ id: "video_mock", status: "processing" });
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "createVideo", model: "sora-2", status: 200 });
    expect(record.costUsd).toBeCloseTo(1.2, 10);
  });

  it("creates a job from a JSON body, validated and logged as sent", async () => {
    const client = recorderClient();
    const body = { model: "sora-2-pro", prompt: "a cat", seconds: "8", size: "1792x1024", input_reference: { image_url: "https://images.example/cat.png" } };
    const { data: video, response } = await client.post<{ id: string }>("/videos", { body }).withResponse();
    expect(video).toMatchObject({ id: "video_123" });
    const sent = recorder.received.at(-1)!;
    expect(sent.headers["content-type"]).toMatch(/^application\/json/);
    expect(JSON.parse(sent.body.toString())).toEqual(body);
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "createVideo", model: "sora-2-pro", status: 200 });
    expect(JSON.parse(record.requestBody!)).toEqual(body);
    expect(record.costUsd).toBeCloseTo(4, 10);
  });

  it("retrieves, lists and deletes without pricing the job again", async () => {
    const client = recorderClient();
    const retrieved = await client.videos.retrieve("video_123").withResponse();
    expect(retrieved.data).toMatchObject({ id: "video_123", status: "completed", progress: 100 });
    const read = await storedLog(gateway, retrieved.response.headers.get("x-gateway-log-id")!);
    expect(read).toMatchObject({ route: "retrieveVideo", method: "GET", path: "/v1/videos/video_123", status: 200, costUsd: null });

    const listed = await client.videos.list({ limit: 5, order: "desc", after: "video_000" }).withResponse();
    expect(listed.data.data.map((entry) => entry.id)).toEqual(["video_123"]);
    expect(recorder.received.at(-1)).toMatchObject({ method: "GET", path: "/v1/videos?limit=5&order=desc&after=video_000" });
    expect(await storedLog(gateway, listed.response.headers.get("x-gateway-log-id")!)).toMatchObject({ route: "listVideos", costUsd: null });

    const deleted = await client.videos.delete("video_123").withResponse();
    expect(deleted.data).toMatchObject({ id: "video_123", deleted: true });
    expect(recorder.received.at(-1)).toMatchObject({ method: "DELETE", path: "/v1/videos/video_123" });
    expect(await storedLog(gateway, deleted.response.headers.get("x-gateway-log-id")!)).toMatchObject({ route: "deleteVideo", costUsd: null });
  });

  it("remixes with a JSON prompt, a new job priced like a created one", async () => {
    const client = recorderClient();
    const { data: remix, response } = await client.videos.remix("video_123", { prompt: "make it night" }).withResponse();
    expect(remix).toMatchObject({ id: "video_456", remixed_from_video_id: "video_123" });
    const sent = recorder.received.at(-1)!;
    expect(sent).toMatchObject({ method: "POST", path: "/v1/videos/video_123/remix" });
    expect(JSON.parse(sent.body.toString())).toEqual({ prompt: "make it night" });
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    // The request names no model: the answer's (sora-2, 4 seconds at 1280x720, $0.10 a second) prices it.
    expect(record).toMatchObject({ route: "remixVideo", status: 200 });
    expect(record.costUsd).toBeCloseTo(0.4, 10);
  });

  it("streams the content byte for byte with its content type and the variant as sent, unpriced", async () => {
    const client = recorderClient();
    const content = await client.videos.downloadContent("video_123", { variant: "video" });
    expect(content.headers.get("content-type")).toBe("video/mp4");
    expect(Buffer.from(await content.arrayBuffer()).equals(MP4)).toBe(true);
    expect(recorder.received.at(-1)).toMatchObject({ method: "GET", path: "/v1/videos/video_123/content?variant=video" });
    const record = await storedLog(gateway, content.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "downloadVideoContent", status: 200, costUsd: null });
  });

  it("refuses bad input before any upstream call: a remix without its prompt, a create neither JSON nor a form or without its prompt, an unknown variant", async () => {
    const before = recorder.received.length;
    const headers = { "x-gateway-provider": "openai", "x-gateway-custom-host": recorder.url };
    const remix = await call(gateway, "POST", "/v1/videos/video_123/remix", { body: {}, headers });
    expect(remix.status).toBe(400);
    expect(remix.body.error).toMatchObject({ code: "invalid_request", param: "prompt" });
    expect(await storedLog(gateway, remix.headers.get("x-gateway-log-id")!)).toMatchObject({ route: "remixVideo", status: 400 });
    const create = await call(gateway, "POST", "/v1/videos", { rawBody: "{}", headers: { ...headers, "content-type": "text/plain" } });
    expect(create.status).toBe(400);
    expect(create.body.error).toMatchObject({ param: "content-type" });
    const noPrompt = await call(gateway, "POST", "/v1/videos", { body: { model: "sora-2" }, headers });
    expect(noPrompt.status).toBe(400);
    expect(noPrompt.body.error).toMatchObject({ param: "prompt" });
    const variant = await call(gateway, "GET", "/v1/videos/video_123/content?variant=movie", { headers });
    expect(variant.status).toBe(400);
    expect(variant.body.error).toMatchObject({ param: "variant" });
    expect(recorder.received.length).toBe(before);
  });
});
