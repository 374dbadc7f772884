import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { EventStreamCodec } from "@smithy/core/event-streams";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { signRequest } from "../src/providers/bedrock/sigv4.ts";
import { startGateway, storedLog, type RunningGateway } from "./support/harness.ts";
import { startRecordingUpstream, type ReceivedRequest, type RecordingUpstream } from "./support/recording-upstream.ts";

const ACCESS_KEY_ID = "AKIAIOSFODNN7EXAMPLE";
const SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY";
const MODEL = "us.anthropic.claude-sonnet-4-20250514-v1:0";

let gateway: RunningGateway;
let upstream: RecordingUpstream;
const codec = new EventStreamCodec(toUtf8, fromUtf8);

const frame = (type: string, payload: object, messageType = "event"): Buffer =>
  Buffer.from(
    codec.encode({
      headers: {
        ":message-type": { type: "string", value: messageType },
        [messageType === "exception" ? ":exception-type" : ":event-type"]: { type: "string", value: type },
        ":content-type": { type: "string", value: "application/json" },
      },
      body: fromUtf8(JSON.stringify(payload)),
    }),
  );

/** What the recording upstream answers, by the user's text. */
function answer(request: ReceivedRequest) {
  const text = request.body.toString("utf8");
  if (text.includes("throttle me")) {
    return {
      status: 429,
      headers: { "content-type": "application/json", "x-amzn-errortype": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/", "retry-after": "7" },
      body: JSON.stringify({ message: "Too many requests, please wait before trying again." }),
    };
  }
  if (text.includes("fail mid-stream")) {
    return {
      headers: { "content-type": "application/vnd.amazon.eventstream" },
      body: Buffer.concat([
        frame("messageStart", { role: "assistant" }),
        frame("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Partial" } }),
        frame("modelStreamErrorException", { message: "The model stopped unexpectedly.", originalStatusCode: 500 }, "exception"),
      ]),
    };
  }
  return {
    output: { message: { role: "assistant", content: [{ reasoningContent: { reasoningText: { text: "Thinking it over." } } }, { text: "Signed and delivered." }] } },
    stopReason: "end_turn",
    usage: { inputTokens: 10, outputTokens: 4, totalTokens: 24, cacheReadInputTokens: 6, cacheWriteInputTokens: 4 },
    metrics: { latencyMs: 12 },
  };
}

beforeAll(async () => {
  upstream = await startRecordingUpstream(answer);
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

function bedrockHeaders(): Record<string, string> {
  return {
    "x-gateway-api-key": gateway.adminKey,
    "x-gateway-provider": "bedrock",
    "x-gateway-custom-host": upstream.url.replace(/\/v1$/, ""),
    "x-gateway-aws-access-key-id": ACCESS_KEY_ID,
    "x-gateway-aws-secret-access-key": SECRET_ACCESS_KEY,
    "x-gateway-aws-region": "eu-west-3",
  };
}

function client(): OpenAI {
  return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "unused", maxRetries: 0, defaultHeaders: bedrockHeaders() });
}

/** Recomputes the request's signature from what arrived, as AWS does, with the same secret and time. */
async function expectValidSignature(request: ReceivedRequest): Promise<void> {
  const authorization = String(request.headers.authorization);
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(authorization);
  expect(match, authorization).not.toBeNull();
  const [, keyId, , region, service, signedHeaders] = match!;
  expect([keyId, region, service]).toEqual([ACCESS_KEY_ID, "eu-west-3", "bedrock"]);
  const headers: Record<string, string> = {};
  for (const name of signedHeaders!.split(";")) if (name !== "host") headers[name] = String(request.headers[name]);
  const amzDate = headers["x-amz-date"]!;
  const date = new Date(`${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`);
  const base = new URL(upstream.url);
  const again = await signRequest(
    { method: request.method, url: `${base.origin}${request.path}`, headers, body: request.body.toString("utf8") },
    { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY },
    { region: "eu-west-3", service: "bedrock", date },
  );
  expect(again.headers.authorization).toBe(authorization);
}

describe("AWS Bedrock: signatures, reasoning, cache usage and errors against a recording upstream", () => {
  it("signs what it sends (verified by re-signing what arrived) and translates reasoning and cached tokens", async () => {
    const { data, response } = await client()
      .chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "sign this" }], reasoning_effort: "low", max_completion_tokens: 4000 })
      .withResponse();
    const request = upstream.received.at(-1)!;
    expect(request.path).toBe(`/model/${encodeURIComponent(MODEL)}/converse`);
    await expectValidSignature(request);
    expect(JSON.parse(request.body.toString("utf8"))).toEqual({
      messages: [{ role: "user", content: [{ text: "sign this" }] }],
      inferenceConfig: { maxTokens: 4000 },
      additionalModelRequestFields: { reasoning_config: { type: "enabled", budget_tokens: 2048 } },
    });
    expect(data.choices[0]?.message.content).toBe("Signed and delivered.");
    expect((data.choices[0]?.message as unknown as { reasoning_content?: string }).reasoning_content).toBe("Thinking it over.");
    expect(data.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 4, total_tokens: 24, prompt_tokens_details: { cached_tokens: 6 } });
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record).toMatchObject({ provider: "bedrock", promptTokens: 20, completionTokens: 4 });
    expect(JSON.stringify(record)).not.toContain(SECRET_ACCESS_KEY);
  });

  it("maps a ThrottlingException to a 429 in the OpenAI envelope and keeps Retry-After", async () => {
    const error = await client()
      .chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "throttle me" }] })
      .then(() => null, (thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const apiError = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(apiError.status).toBe(429);
    expect(apiError.headers.get("retry-after")).toBe("7");
    expect(apiError.error).toMatchObject({ message: "Too many requests, please wait before trying again.", code: "ThrottlingException", type: "rate_limit_error" });
  });

  it("ends a stream with an explicit error event when Bedrock sends an exception, and logs the failure", async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { ...bedrockHeaders(), "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "fail mid-stream" }], stream: true }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('"content":"Partial"');
    const errorEvent = /event: error\ndata: (.*)\n/.exec(text);
    expect(errorEvent).not.toBeNull();
    expect(JSON.parse(errorEvent![1]!)).toMatchObject({ error: { message: "The model stopped unexpectedly.", code: "ModelStreamErrorException" } });
    expect(text).not.toContain("[DONE]");
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record.success).toBe(false);
  });
});
