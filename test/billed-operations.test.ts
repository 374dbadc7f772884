import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storedLog, startGateway, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { startRecordingUpstream, type Answer, type ReceivedRequest, type RecordingUpstream } from "./support/recording-upstream.ts";

/**
 * Every OpenAI operation that is billed is a route of its own, logged with its usage and cost:
 * a compaction in tokens, a video edit or extension in seconds. Through the pass-through they
 * would be logged with neither.
 */

let gateway: RunningGateway;
let upstream: RecordingUpstream;

const compaction = { id: "resp_c1", object: "response.compaction", created_at: 1, output: [{ type: "compaction", id: "cmp_1", encrypted_content: "x" }], usage: { input_tokens: 1_000_000, output_tokens: 1_000_000, total_tokens: 2_000_000 } };
const videoJob = (id: string) => ({ id, object: "video", model: "sora-2-pro", status: "queued", progress: 0, created_at: 1, seconds: "8", size: "1280x720" });

function answer(request: ReceivedRequest): Answer {
  const json = (body: unknown): Answer => ({ headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (request.path === "/v1/responses/compact") return json(compaction);
  if (request.path === "/v1/videos/edits") return json(videoJob("video_edit"));
  if (request.path === "/v1/videos/extensions") return json(videoJob("video_ext"));
  return { status: 404, headers: { "content-type": "application/json" }, body: JSON.stringify({ error: { message: "no", type: "invalid_request_error", param: null, code: null } }) };
}

beforeAll(async () => {
  upstream = await startRecordingUpstream(answer);
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const client = () =>
  new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: UPSTREAM_KEY,
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": upstream.url },
  });

describe("billed operations are priced routes", () => {
  it("logs a compaction under its own route with its token usage and cost", async () => {
    const { data, response } = await client().responses.compact({ model: "gpt-4o-mini", input: "a long conversation" }).withResponse();
    expect(data.object).toBe("response.compaction");
    expect(JSON.parse(upstream.received.at(-1)!.body.toString())).toEqual({ model: "gpt-4o-mini", input: "a long conversation" });
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ route: "compactResponse", status: 200, model: "gpt-4o-mini", promptTokens: 1_000_000, completionTokens: 1_000_000 });
    // gpt-4o-mini: $0.15 in and $0.60 out per million tokens.
    expect(record.costUsd).toBeCloseTo(0.75, 10);
  });

  it("logs a video edit and a video extension, sent as the SDK's forms, with their cost per second", async () => {
    const video = await toFile(Buffer.from("not really a video"), "clip.mp4", { type: "video/mp4" });
    const edit = await client().videos.edit({ video, prompt: "make it night" }).withResponse();
    expect(edit.data.id).toBe("video_edit");
    expect(upstream.received.at(-1)!.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    const extension = await client().videos.extend({ video: { id: "video_1" }, prompt: "keep going", seconds: "8" }).withResponse();
    expect(extension.data.id).toBe("video_ext");
    for (const [{ response }, route] of [
      [edit, "createVideoEdit"],
      [extension, "createVideoExtension"],
    ] as const) {
      const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
      // sora-2-pro at 1280x720: $0.30 a second, for the 8 seconds the answer states.
      expect(record).toMatchObject({ route, status: 200 });
      expect(record.costUsd, route).toBeCloseTo(2.4, 10);
    }
  });
});
