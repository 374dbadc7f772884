import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { call, startGateway, storedLog, type RunningGateway } from "./support/harness.ts";
import { startRawUpstream, type RawUpstream } from "./support/raw-upstream.ts";

/**
 * An upstream (a custom host above all) may echo the credentials it was sent in its error. The
 * upstream here answers 401 quoting every credential header it got, as plain text, in a JSON
 * error, and in a passed-on rate-limit header; neither the client's answer nor the stored log
 * may hold any of them.
 */

const CLIENT_KEY = "sk-client-bearer-echo-0001";
const STORED_KEY = "sk-ant-stored-echo-0002";
const CONFIG_KEY = "sk-config-echo-0003";
const KEYS = [CLIENT_KEY, STORED_KEY, CONFIG_KEY];

let upstream: RawUpstream;
let gateway: RunningGateway;

/** Every credential header the upstream received, as `name: value` lines. */
function echoed(headers: Record<string, string | string[] | undefined>): string {
  return ["authorization", "x-api-key", "api-key"].filter((name) => headers[name] !== undefined).map((name) => `${name}: ${String(headers[name])}`).join("; ");
}

beforeAll(async () => {
  upstream = await startRawUpstream((body, res, req) => {
    const quote = echoed(req.headers);
    const how = String(body?.messages?.[0]?.content ?? "json");
    const headers = { "x-ratelimit-note": quote.replace(/[^\x20-\x7e]/g, "") };
    if (how === "text") {
      res.writeHead(401, { ...headers, "content-type": "text/plain" });
      return res.end(`Unauthorized. You sent ${quote} to ${req.url}`);
    }
    if (how === "escaped") {
      // JSON escapes every character may take (PHP writes `/` as `\/`): the key shows only once parsed.
      res.writeHead(401, { ...headers, "content-type": "application/json" });
      const escaped = [...`Incorrect API key provided: ${quote}`].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
      return res.end(`{"error":{"message":"${escaped}","type":"authentication_error","code":"invalid_api_key","param":null}}`);
    }
    res.writeHead(401, { ...headers, "content-type": "application/json" });
    const message = `Incorrect API key provided: ${quote}`;
    // OpenAI's and Anthropic's error shapes at once: each provider's transform finds its own.
    res.end(JSON.stringify({ type: "error", error: { message, type: "authentication_error", code: "invalid_api_key", param: null }, request: { headers: req.headers } }));
  });
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** The answer and stored log hold no key, and the message shows where one was. */
async function expectScrubbed(response: { status: number; body: unknown; headers: Headers }): Promise<void> {
  expect(response.status).toBe(401);
  const answer = JSON.stringify(response.body) + JSON.stringify([...response.headers.entries()]);
  for (const key of KEYS) expect(answer).not.toContain(key);
  expect(answer).toContain("[redacted]");
  const record = await storedLog(gateway, response.headers.get("x-gateway-log-id")!);
  const logged = JSON.stringify(record);
  for (const key of KEYS) expect(logged).not.toContain(key);
  expect(record.attempts.at(-1)?.errorMessage).toContain("[redacted]");
}

const chat = (content: string) => ({ model: "gpt-4o-mini", messages: [{ role: "user" as const, content }] });
const direct = () => ({ "x-gateway-provider": "openai", "x-gateway-custom-host": upstream.url, authorization: `Bearer ${CLIENT_KEY}` });

describe("an upstream error that echoes the credentials", () => {
  it.each(["text", "json", "escaped"])("reaches the client and the log without the key (%s body)", async (how) => {
    await expectScrubbed(await call(gateway, "POST", "/v1/chat/completions", { body: chat(how), headers: direct() }));
  });

  it("is scrubbed for a streamed request too, through the official client", async () => {
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: CLIENT_KEY, maxRetries: 0, defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": upstream.url } });
    const error = await client.chat.completions.create({ ...chat("json"), stream: true }).then(
      () => null,
      (thrown: unknown) => thrown as InstanceType<typeof OpenAI.APIError>,
    );
    expect(error?.status).toBe(401);
    expect(error?.message).toContain("[redacted]");
    expect(JSON.stringify(error?.error)).not.toContain(CLIENT_KEY);
  });

  it("hides a stored virtual key's x-api-key (Anthropic) and a stored config's key", async () => {
    const vk = await call(gateway, "POST", "/v1/virtual-keys", { body: { name: "echo", provider: "anthropic", key: STORED_KEY, custom_host: upstream.url } });
    expect(vk.status).toBe(201);
    await expectScrubbed(await call(gateway, "POST", "/v1/chat/completions", { body: { ...chat("json"), model: "claude-3-5-haiku-latest", max_tokens: 10 }, headers: { "x-gateway-virtual-key": vk.body.slug } }));
    const config = await call(gateway, "POST", "/v1/configs", { body: { name: "echo", config: { provider: "openai", api_key: CONFIG_KEY, custom_host: upstream.url } } });
    expect(config.status).toBe(201);
    await expectScrubbed(await call(gateway, "POST", "/v1/chat/completions", { body: chat("text"), headers: { "x-gateway-config": config.body.slug } }));
  });
});
