import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBunGateway, type BunGateway } from "./support/bun-gateway.ts";
import { removeSqliteTestDatabase, sqliteTestUrl } from "./support/databases.ts";
import { startGateway, type RunningGateway } from "./support/harness.ts";
import { startRecordingUpstream, type RecordingUpstream } from "./support/recording-upstream.ts";

/**
 * JSON text is UTF-8 (RFC 8259 §8.1). A JSON body with bytes that are not is refused with a 400
 * naming the first bad byte, on every route that reads one (inference, the pass-through, a
 * forwarded cancel, the control plane), instead of being decoded to U+FFFD and sent on changed;
 * valid multi-byte text reaches the upstream byte for byte. Under Node and Bun alike.
 */
let gateway: RunningGateway;
let upstream: RecordingUpstream;

const COMPLETION = { id: "c1", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };

beforeAll(async () => {
  upstream = await startRecordingUpstream(() => COMPLETION);
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** `before`, then the raw bytes, then `after`, as one body. */
function bytes(before: string, raw: number[], after: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array([...Buffer.from(before, "utf8"), ...raw, ...Buffer.from(after, "utf8")]);
}

function post(path: string, body: Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gateway.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": upstream.url, authorization: "Bearer sk-upstream", ...headers },
    body,
  });
}

const CHAT_PREFIX = '{"model":"m","messages":[{"role":"user","content":"caf';
const CHAT_SUFFIX = '"}]}';

describe("a JSON body that is not UTF-8", () => {
  it("is a 400 naming the bad byte on chat, and nothing goes upstream", async () => {
    const before = upstream.received.length;
    const response = await post("/v1/chat/completions", bytes(CHAT_PREFIX, [0xc3, 0x28], CHAT_SUFFIX));
    expect(response.status).toBe(400);
    const answer = await response.json();
    expect(answer.error).toEqual({
      message: `The request body is not valid UTF-8 (byte ${CHAT_PREFIX.length + 1} is 0x28); JSON text must be UTF-8.`,
      type: "invalid_request_error",
      code: "invalid_json",
      param: null,
    });
    expect(upstream.received.length).toBe(before);
    // The gateway keeps serving on the same connection.
    expect((await post("/v1/chat/completions", new Uint8Array(Buffer.from(`${CHAT_PREFIX}é${CHAT_SUFFIX}`, "utf8")))).status).toBe(200);
  });

  it("says so for a lone byte that starts nothing, and for a body that ends inside a character", async () => {
    const lone = await post("/v1/chat/completions", bytes(CHAT_PREFIX, [0xff], CHAT_SUFFIX));
    expect(lone.status).toBe(400);
    expect((await lone.json()).error.message).toContain(`byte ${CHAT_PREFIX.length} is 0xFF`);
    const cut = await post("/v1/chat/completions", bytes(CHAT_PREFIX, [0xe4, 0xb8], ""));
    expect(cut.status).toBe(400);
    expect((await cut.json()).error.message).toContain("it ends inside a multi-byte character");
  });

  it.each([
    ["the pass-through", "/v1/assistants", '{"name":"', '"}'],
    ["a forwarded cancel", "/v1/batches/batch_1/cancel", '{"reason":"', '"}'],
    ["embeddings", "/v1/embeddings", '{"model":"m","input":"', '"}'],
    ["the control plane (a config)", "/v1/configs", '{"name":"', '","config":{"provider":"openai"}}'],
    ["the control plane (a prompt)", "/v1/prompts", '{"name":"p","model":"m","messages":[{"role":"user","content":"', '"}]}'],
  ])("is a 400 on %s too", async (_what, path, prefix, suffix) => {
    const before = upstream.received.length;
    const response = await post(path, bytes(prefix, [0xc3, 0x28], suffix));
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({ code: "invalid_json", message: expect.stringContaining("not valid UTF-8") });
    expect(upstream.received.length).toBe(before);
  });

  it("is a 400 on the MCP gateway too", async () => {
    const response = await fetch(`${gateway.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${gateway.adminKey}` },
      body: bytes('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"note":"', [0xc3, 0x28], '"}}'),
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({ code: "invalid_json", message: expect.stringContaining("not valid UTF-8") });
  });
});

describe("a JSON body in valid UTF-8", () => {
  it("reaches the upstream byte for byte: emoji, CJK, accents and a surrogate pair escaped", async () => {
    const body = Buffer.from('{"model":"m","messages":[{"role":"user","content":"héllo 👋🏽 你好世界 日本語 \\ud83d\\ude00"}]}', "utf8");
    const response = await post("/v1/chat/completions", new Uint8Array(body));
    expect(response.status).toBe(200);
    expect((await response.json()).choices[0].message.content).toBe("hi");
    expect(upstream.received.at(-1)!.body.equals(body)).toBe(true);
  });

  it("is stored by the control plane as sent", async () => {
    const response = await post("/v1/configs", new Uint8Array(Buffer.from('{"name":"配置 ✓","config":{"provider":"openai"}}', "utf8")));
    expect(response.status).toBe(201);
    const { slug } = await response.json();
    const stored = await fetch(`${gateway.url}/v1/configs/${slug}`, { headers: { "x-gateway-api-key": gateway.adminKey } }).then((answer) => answer.json());
    expect(stored.name).toBe("配置 ✓");
  });
});

describe("the same under Bun (npm start)", () => {
  let bun: BunGateway;
  const databaseUrl = sqliteTestUrl();
  beforeAll(async () => {
    bun = await startBunGateway(databaseUrl);
  }, 60_000);
  afterAll(async () => {
    await bun?.stop();
    await removeSqliteTestDatabase(databaseUrl);
  });

  const bunPost = (body: Uint8Array<ArrayBuffer>) =>
    fetch(`${bun.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gateway-api-key": bun.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": upstream.url, authorization: "Bearer sk-upstream" },
      body,
    });

  it("refuses bytes that are not UTF-8 and passes valid multi-byte text byte for byte", async () => {
    const refused = await bunPost(bytes(CHAT_PREFIX, [0xc3, 0x28], CHAT_SUFFIX));
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.message).toBe(`The request body is not valid UTF-8 (byte ${CHAT_PREFIX.length + 1} is 0x28); JSON text must be UTF-8.`);
    const body = Buffer.from('{"model":"m","messages":[{"role":"user","content":"👋🏽 你好"}]}', "utf8");
    const served = await bunPost(new Uint8Array(body));
    expect(served.status).toBe(200);
    expect(upstream.received.at(-1)!.body.equals(body)).toBe(true);
  });
});
