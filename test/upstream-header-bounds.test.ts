import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBunGateway, type BunGateway } from "./support/bun-gateway.ts";
import { removeSqliteTestDatabase, sqliteTestUrl } from "./support/databases.ts";
import { startGateway, storedLog, type RunningGateway } from "./support/harness.ts";
import { startRawUpstream, type RawUpstream } from "./support/raw-upstream.ts";

/**
 * An upstream whose answer carries headers no real provider sends: rate-limit values of 8 KB and
 * a hundred of them, a cookie or debug header of 20 KB to 2 MiB. The gateway reads the answer
 * (up to about 1 MiB of headers under Node and Bun alike), passes on only what is within bounds,
 * and the try's log note names what it dropped and why.
 */
let upstream: RawUpstream;
let gateway: RunningGateway;

const COMPLETION = { id: "c1", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };
const CHUNK = { id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content: "hi" }, finish_reason: "stop" }] };

/** The request's model says which headers the answer carries: `rate-limits`, or `<header>:<bytes>`. */
function answerHeaders(model: string): Record<string, string> {
  const headers: Record<string, string> = { "x-request-id": "req_1" };
  if (model === "rate-limits") {
    headers["x-ratelimit-limit-requests"] = "x".repeat(8_000);
    for (let index = 0; index < 100; index += 1) headers[`x-ratelimit-extra-${index}`] = String(index);
    return headers;
  }
  const [name, bytes] = model.split(":");
  headers[name!] = "v".repeat(Number(bytes));
  return headers;
}

beforeAll(async () => {
  upstream = await startRawUpstream((body, res) => {
    const headers = answerHeaders(String(body.model));
    if (body.stream === true) {
      res.writeHead(200, { ...headers, "content-type": "text/event-stream" });
      res.end(`data: ${JSON.stringify(CHUNK)}\n\ndata: [DONE]\n\n`);
      return;
    }
    res.writeHead(200, { ...headers, "content-type": "application/json" });
    res.end(JSON.stringify(COMPLETION));
  });
  gateway = await startGateway();
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

function client(target: { url: string; adminKey: string }): OpenAI {
  return new OpenAI({
    baseURL: `${target.url}/v1`,
    apiKey: "sk-test",
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": target.adminKey, "x-gateway-provider": "openai-compatible", "x-gateway-custom-host": upstream.url },
  });
}

describe("an upstream's headers on their way back", () => {
  it("are passed on only within bounds: no long value, at most 32; the log notes what was dropped", async () => {
    const { data, response } = await client(gateway).chat.completions.create({ model: "rate-limits", messages: [{ role: "user", content: "hi" }] }).withResponse();
    expect(data.choices[0]?.message.content).toBe("hi");
    const relayed = [...response.headers.keys()].filter((name) => name.startsWith("x-ratelimit-"));
    expect(response.headers.get("x-request-id")).toBe("req_1");
    expect(response.headers.get("x-ratelimit-limit-requests")).toBeNull();
    expect(relayed.length).toBeGreaterThan(10);
    expect(relayed.length).toBeLessThanOrEqual(32);
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record.attempts[0]!.note).toBe(
      "Upstream answer headers dropped: x-ratelimit-limit-requests (8000 characters, over the 256 a passed-on value may have); 68 rate-limit headers past the 32 passed on.",
    );
  });

  it.each([
    ["set-cookie", 20_000],
    ["x-debug", 100_000],
    ["x-request-id", 100_000],
  ])("a %s header of %i bytes is dropped, the call succeeds, and the try's log note names it", async (name, bytes) => {
    const { data, response } = await client(gateway).chat.completions.create({ model: `${name}:${bytes}`, messages: [{ role: "user", content: "hi" }] }).withResponse();
    expect(data.choices[0]?.message.content).toBe("hi");
    expect(response.headers.get(name)).toBeNull();
    const logId = response.headers.get("x-gateway-log-id")!;
    const record = await storedLog(gateway, logId);
    expect(record.status).toBe(200);
    expect(record.attempts[0]!.note).toContain(`${name} (${bytes} characters, `);
    expect(JSON.stringify(record)).not.toContain("v".repeat(300));
    // The log's API shows the note on the attempt.
    const viewed = await fetch(`${gateway.url}/v1/logs/${logId}`, { headers: { "x-gateway-api-key": gateway.adminKey } }).then((answer) => answer.json());
    expect(viewed.attempts[0].note).toBe(record.attempts[0]!.note);
  });

  it("does the same for a streamed answer", async () => {
    const stream = await client(gateway).chat.completions.create({ model: "x-debug:100000", messages: [{ role: "user", content: "hi" }], stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("hi");
  });

  it("an answer without oversized headers carries no note", async () => {
    const { response } = await client(gateway).chat.completions.create({ model: "x-debug:100", messages: [{ role: "user", content: "hi" }] }).withResponse();
    const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
    expect(record.attempts[0]).not.toHaveProperty("note");
  });

  it("a header block well past 1 MiB (2 MiB) fails the call with a 502 that says so", async () => {
    const failed = await client(gateway)
      .chat.completions.create({ model: `x-debug:${2 * 1024 * 1024}`, messages: [{ role: "user", content: "hi" }] })
      .catch((error: unknown) => error as InstanceType<typeof OpenAI.APIError>);
    expect(failed).toBeInstanceOf(OpenAI.APIError);
    expect((failed as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((failed as InstanceType<typeof OpenAI.APIError>).message).toContain("its answer's headers are over 1 MiB in all");
  });
});

describe("an upstream's oversized headers under Bun (npm start)", () => {
  let bun: BunGateway;
  const databaseUrl = sqliteTestUrl();
  beforeAll(async () => {
    bun = await startBunGateway(databaseUrl);
  }, 60_000);
  afterAll(async () => {
    await bun?.stop();
    await removeSqliteTestDatabase(databaseUrl);
  });

  it("reads a 100 KB header and drops it, and fails one of 2 MiB with the same 502", async () => {
    const { data, response } = await client(bun).chat.completions.create({ model: "set-cookie:100000", messages: [{ role: "user", content: "hi" }] }).withResponse();
    expect(data.choices[0]?.message.content).toBe("hi");
    expect(response.headers.get("set-cookie")).toBeNull();
    const failed = await client(bun)
      .chat.completions.create({ model: `x-debug:${2 * 1024 * 1024}`, messages: [{ role: "user", content: "hi" }] })
      .catch((error: unknown) => error as InstanceType<typeof OpenAI.APIError>);
    expect((failed as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((failed as InstanceType<typeof OpenAI.APIError>).message).toContain("its answer's headers are over 1 MiB in all");
  });
});
