import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { call, startGateway, startUpstream, storedLog, type RunningGateway } from "./support/harness.ts";
import { openaiContractProblems } from "./support/contract.ts";

// Test credentials in the shape AWS issues; aimock accepts any signature, so the test checks its form.
const ACCESS_KEY_ID = "AKIAIOSFODNN7EXAMPLE";
const SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY";
const SESSION_TOKEN = "FwoGZXIvYXdzEXAMPLESESSIONTOKEN0123456789";
const MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0";

let gateway: RunningGateway;
let upstream: LLMock;

const tools = [
  {
    type: "function" as const,
    function: { name: "get_weather", description: "Weather of a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
  },
];

beforeAll(async () => {
  // The official document's schemas compile once here, not inside the first test's time.
  openaiContractProblems("CreateChatCompletionResponse", {});
  openaiContractProblems("CreateChatCompletionStreamResponse", {});
  upstream = await startUpstream();
  upstream.onMessage("bedrock hello", { content: "Hello from Bedrock!", usage: { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 } });
  upstream.onMessage("bedrock stream", { content: "One two three four five", usage: { prompt_tokens: 9, completion_tokens: 7, total_tokens: 16 } });
  upstream.onMessage("bedrock weather", { toolCalls: [{ name: "get_weather", arguments: '{"city":"Paris"}' }], usage: { prompt_tokens: 20, completion_tokens: 8, total_tokens: 28 } });
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
});

function bedrockHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return {
    "x-gateway-api-key": gateway.adminKey,
    "x-gateway-provider": "bedrock",
    "x-gateway-custom-host": upstream.url,
    "x-gateway-aws-access-key-id": ACCESS_KEY_ID,
    "x-gateway-aws-secret-access-key": SECRET_ACCESS_KEY,
    "x-gateway-aws-session-token": SESSION_TOKEN,
    "x-gateway-aws-region": "us-east-1",
    ...extra,
  };
}

function client(headers: Record<string, string>): OpenAI {
  return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "unused-by-sigv4", defaultHeaders: headers, maxRetries: 0 });
}

/** The last request aimock saw, with its headers. */
function lastSeen() {
  const seen = upstream.getLastRequest();
  expect(seen).not.toBeNull();
  return seen!;
}

async function expectNoSecretIn(logId: string): Promise<void> {
  const record = await storedLog(gateway, logId);
  const everything = JSON.stringify(record);
  expect(everything).not.toContain(SECRET_ACCESS_KEY);
  expect(everything).not.toContain(SESSION_TOKEN);
}

describe("AWS Bedrock (Converse) through the official openai client, credentials in headers", () => {
  it("translates a plain completion, signs it with SigV4, and logs tokens and cost", async () => {
    const { data, response } = await client(bedrockHeaders())
      .chat.completions.create({ model: MODEL, messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "bedrock hello" }], max_tokens: 100 })
      .withResponse();
    expect(openaiContractProblems("CreateChatCompletionResponse", data)).toEqual([]);
    expect(data.choices[0]?.message.content).toBe("Hello from Bedrock!");
    expect(data.choices[0]?.finish_reason).toBe("stop");
    expect(data.model).toBe(MODEL);
    expect(data.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 });

    const seen = lastSeen();
    expect(seen.path).toBe(`/model/${encodeURIComponent(MODEL)}/converse`);
    // aimock redacts the authorization header; the signature itself is verified in bedrock-signing.test.ts.
    expect(seen.headers["x-amz-date"]).toMatch(/^\d{8}T\d{6}Z$/);
    expect(seen.headers["x-gateway-aws-secret-access-key"]).toBeUndefined();

    const logId = response.headers.get("x-gateway-log-id")!;
    const record = await storedLog(gateway, logId);
    expect(record).toMatchObject({ provider: "bedrock", model: MODEL, status: 200, success: true, promptTokens: 11, completionTokens: 5, totalTokens: 16 });
    expect(record.costUsd).toBeGreaterThan(0);
    await expectNoSecretIn(logId);
  });

  it("translates the event stream into chunks, usage only when asked, and logs it", async () => {
    for (const includeUsage of [false, true]) {
      const { data: stream, response } = await client(bedrockHeaders())
        .chat.completions.create({ model: MODEL, messages: [{ role: "user", content: "bedrock stream" }], stream: true, ...(includeUsage && { stream_options: { include_usage: true } }) })
        .withResponse();
      let text = "";
      let finish: string | null = null;
      let usage: OpenAI.CompletionUsage | null = null;
      for await (const chunk of stream) {
        expect(openaiContractProblems("CreateChatCompletionStreamResponse", chunk), JSON.stringify(chunk)).toEqual([]);
        text += chunk.choices[0]?.delta.content ?? "";
        finish = chunk.choices[0]?.finish_reason ?? finish;
        if (chunk.usage) usage = chunk.usage;
      }
      expect(text).toBe("One two three four five");
      expect(finish).toBe("stop");
      expect(usage?.total_tokens ?? null).toBe(includeUsage ? 16 : null);
      expect(lastSeen().path).toBe(`/model/${encodeURIComponent(MODEL)}/converse-stream`);

      const logId = response.headers.get("x-gateway-log-id")!;
      const record = await storedLog(gateway, logId);
      expect(record).toMatchObject({ provider: "bedrock", stream: true, success: true, promptTokens: 9, completionTokens: 7 });
      expect(record.costUsd).toBeGreaterThan(0);
      expect(JSON.parse(record.responseBody!).choices[0].message.content).toBe("One two three four five");
      await expectNoSecretIn(logId);
    }
  });

  it("translates tools and tool calls, plain and streamed, and sends tool results back as toolResult", async () => {
    const plain = await client(bedrockHeaders()).chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "bedrock weather in Paris?" }],
      tools,
      tool_choice: "required",
    });
    expect(openaiContractProblems("CreateChatCompletionResponse", plain)).toEqual([]);
    const toolCall = plain.choices[0]?.message.tool_calls?.[0];
    expect(plain.choices[0]?.finish_reason).toBe("tool_calls");
    expect(toolCall?.type === "function" && toolCall.function.name).toBe("get_weather");
    expect(toolCall?.type === "function" && JSON.parse(toolCall.function.arguments)).toEqual({ city: "Paris" });
    const sent = lastSeen().body as { model: string } & Record<string, unknown>;
    expect(sent).toMatchObject({ tools: [{ type: "function", function: { name: "get_weather", parameters: { required: ["city"] } } }] });

    const stream = await client(bedrockHeaders()).chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "bedrock weather in Paris?" }],
      tools,
      stream: true,
    });
    let name = "";
    let args = "";
    let id = "";
    let finish: string | null = null;
    for await (const chunk of stream) {
      expect(openaiContractProblems("CreateChatCompletionStreamResponse", chunk), JSON.stringify(chunk)).toEqual([]);
      for (const part of chunk.choices[0]?.delta.tool_calls ?? []) {
        expect(part.index).toBe(0);
        id += part.id ?? "";
        name += part.function?.name ?? "";
        args += part.function?.arguments ?? "";
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(name).toBe("get_weather");
    expect(id).not.toBe("");
    expect(JSON.parse(args)).toEqual({ city: "Paris" });
    expect(finish).toBe("tool_calls");

    // The tool's answer goes back as a toolResult: aimock reads it back as an OpenAI tool message.
    await client(bedrockHeaders()).chat.completions
      .create({
        model: MODEL,
        messages: [
          { role: "user", content: "bedrock weather in Paris?" },
          { role: "assistant", content: null, tool_calls: [{ id: "tooluse_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
          { role: "tool", tool_call_id: "tooluse_1", content: "18 degrees" },
        ],
        tools,
      })
      .catch(() => undefined);
    const followUp = lastSeen().body as { messages: { role: string; content: unknown; tool_call_id?: string }[] };
    expect(followUp.messages).toContainEqual(expect.objectContaining({ role: "tool", content: "18 degrees", tool_call_id: "tooluse_1" }));
  });

  it("refuses an image by URL with a 400 naming the part, before any upstream call", async () => {
    const before = upstream.getRequests().length;
    const refused = await call(gateway, "POST", "/v1/chat/completions", {
      headers: bedrockHeaders(),
      body: { model: MODEL, messages: [{ role: "user", content: [{ type: "text", text: "what is this?" }, { type: "image_url", image_url: { url: "https://example.com/cat.png" } }] }] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.param).toBe("messages[0].content[1].image_url.url");
    expect(upstream.getRequests().length).toBe(before);
  });

  it("checks credential fields by pattern and names the header", async () => {
    const refused = await call(gateway, "POST", "/v1/chat/completions", {
      headers: bedrockHeaders({ "x-gateway-aws-region": "us-east-1.evil.example" }),
      body: { model: MODEL, messages: [{ role: "user", content: "bedrock hello" }] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.param).toBe("x-gateway-aws-region");
    const unsigned = await call(gateway, "POST", "/v1/chat/completions", {
      headers: bedrockHeaders({ "x-gateway-aws-region": "" }),
      body: { model: MODEL, messages: [{ role: "user", content: "bedrock hello" }] },
    });
    expect(unsigned.status).toBe(400);
    expect(unsigned.body.error.param).toBe("x-gateway-aws-region");
  });

  it("sends a Bedrock API key as a bearer token when no access key pair is given", async () => {
    const headers = bedrockHeaders();
    delete headers["x-gateway-aws-access-key-id"];
    delete headers["x-gateway-aws-secret-access-key"];
    delete headers["x-gateway-aws-session-token"];
    const answer = await new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "bedrock-api-key-0123456789", defaultHeaders: headers, maxRetries: 0 }).chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: "bedrock hello" }],
    });
    expect(answer.choices[0]?.message.content).toBe("Hello from Bedrock!");
    expect(lastSeen().headers["x-amz-date"]).toBeUndefined();
  });
});

describe("AWS Bedrock through a virtual key holding the credential fields", () => {
  it("stores the fields (secrets sealed, shown masked), signs with them, and keeps them from other hosts", async () => {
    const created = await call(gateway, "POST", "/v1/virtual-keys", {
      body: {
        name: "bedrock eu",
        provider: "bedrock",
        custom_host: upstream.url,
        fields: { aws_access_key_id: ACCESS_KEY_ID, aws_secret_access_key: SECRET_ACCESS_KEY, aws_region: "eu-central-1" },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.fields).toEqual({ aws_access_key_id: ACCESS_KEY_ID, aws_secret_access_key: "********", aws_region: "eu-central-1" });
    expect(JSON.stringify(created.body)).not.toContain(SECRET_ACCESS_KEY);
    const slug: string = created.body.slug;
    const row = await gateway.gateway.deps.store.virtualKeys.getBySlug(created.body.workspace_id, slug);
    expect(JSON.stringify(row)).not.toContain(SECRET_ACCESS_KEY);

    // Header fields lose to the stored ones: the region signed is the key's.
    const viaKey = new OpenAI({
      baseURL: `${gateway.url}/v1`,
      apiKey: "unused",
      maxRetries: 0,
      defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-aws-region": "us-west-2" },
    });
    const { data, response } = await viaKey.chat.completions.create({ model: `@${slug}/${MODEL}`, messages: [{ role: "user", content: "bedrock hello" }] }).withResponse();
    expect(openaiContractProblems("CreateChatCompletionResponse", data)).toEqual([]);
    expect(data.choices[0]?.message.content).toBe("Hello from Bedrock!");
    expect(lastSeen().path).toBe(`/model/${encodeURIComponent(MODEL)}/converse`);
    const logId = response.headers.get("x-gateway-log-id")!;
    const record = await storedLog(gateway, logId);
    expect(record).toMatchObject({ provider: "bedrock", promptTokens: 11, completionTokens: 5 });
    expect(record.virtualKeyId).toBe(created.body.id);
    await expectNoSecretIn(logId);

    const stream = await viaKey.chat.completions.create({ model: `@${slug}/${MODEL}`, messages: [{ role: "user", content: "bedrock stream" }], stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("One two three four five");

    // The stored secret never goes to a host the request names.
    const elsewhere = await call(gateway, "POST", "/v1/chat/completions", {
      headers: { "x-gateway-virtual-key": slug, "x-gateway-custom-host": "http://127.0.0.1:9/" },
      body: { model: MODEL, messages: [{ role: "user", content: "bedrock hello" }] },
    });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error.param).toBe("x-gateway-custom-host");

    // A masked secret sent back keeps the stored one; an undeclared field is refused by name.
    const kept = await call(gateway, "PUT", `/v1/virtual-keys/${slug}`, { body: { fields: { ...created.body.fields, aws_region: "eu-west-1" } } });
    expect(kept.status).toBe(200);
    expect(kept.body.fields).toEqual({ aws_access_key_id: ACCESS_KEY_ID, aws_secret_access_key: "********", aws_region: "eu-west-1" });
    const again = await viaKey.chat.completions.create({ model: `@${slug}/${MODEL}`, messages: [{ role: "user", content: "bedrock hello" }] });
    expect(again.choices[0]?.message.content).toBe("Hello from Bedrock!");
    const unknown = await call(gateway, "PUT", `/v1/virtual-keys/${slug}`, { body: { fields: { aws_profile: "default" } } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.param).toBe("fields.aws_profile");
    const badRegion = await call(gateway, "POST", "/v1/virtual-keys", { body: { name: "bad", provider: "bedrock", fields: { aws_access_key_id: ACCESS_KEY_ID, aws_secret_access_key: SECRET_ACCESS_KEY, aws_region: "moon-1" } } });
    expect(badRegion.status).toBe(400);
    expect(badRegion.body.error.param).toBe("fields.aws_region");
    const noKey = await call(gateway, "POST", "/v1/virtual-keys", { body: { name: "no key", provider: "openai" } });
    expect(noKey.status).toBe(400);
    expect(noKey.body.error.param).toBe("key");
  });
});
