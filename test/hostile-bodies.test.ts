import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBunGateway, type BunGateway } from "./support/bun-gateway.ts";
import { removeSqliteTestDatabase, sqliteTestUrl } from "./support/databases.ts";

/**
 * Bodies built to make the checks expensive, sent to `npm start` under Bun while `/health` is
 * polled: the longest wait of a `/health` call during a hostile body is compared with the wait
 * during a valid body of the same size and shape, which the gateway parses, checks and proxies.
 * Each case is a pair: the hostile body, and its valid twin.
 */
const MESSAGES = 300_000;
const many = <T>(count: number, make: (index: number) => T): T[] => Array.from({ length: count }, (_, index) => make(index));
const hi = [{ role: "user", content: "hi" }];
const goodTool = { type: "function", function: { name: "f" } };

type Pair = [hostile: () => unknown, valid: () => unknown];

const bodies: Record<string, Pair> = {
  "1.5M metadata keys (26 MB)": [
    () => ({ model: "m", messages: hi, metadata: Object.fromEntries(many(1_500_000, (index) => [`k${index}`, index])) }),
    () => ({ model: "m", messages: [{ role: "user", content: "x".repeat(26_000_000) }] }),
  ],
  "300,000 bad messages": [() => ({ model: "m", messages: many(MESSAGES, () => ({ role: "robot", content: 1 })) }), () => ({ model: "m", messages: many(MESSAGES, () => ({ role: "user", content: "hi" })) })],
  "300,000 bad tools": [() => ({ model: "m", messages: hi, tools: many(MESSAGES, () => ({ type: 1 })) }), () => ({ model: "m", messages: hi, tools: many(MESSAGES, () => goodTool) })],
  "a bad message after 300,000 good ones": [
    () => ({ model: "m", messages: [...many(MESSAGES, () => ({ role: "user", content: "hello" })), { role: "robot" }] }),
    () => ({ model: "m", messages: [...many(MESSAGES, () => ({ role: "user", content: "hello" })), { role: "user" }] }),
  ],
};

const responsesBodies: Record<string, Pair> = {
  "300,000 bad input items": [() => ({ model: "m", input: many(MESSAGES, () => ({ role: "robot", content: 1 })) }), () => ({ model: "m", input: many(MESSAGES, () => ({ role: "user", content: "hi" })) })],
  "300,000 bad tools": [() => ({ model: "m", input: "hi", tools: many(MESSAGES, () => ({ type: 1 })) }), () => ({ model: "m", input: "hi", tools: many(MESSAGES, () => goodTool) })],
  "an mcp tool then 300,000 bad tools": [
    () => ({ model: "m", input: "hi", tools: [{ type: "mcp", server_label: "crm", allowed_tools: { tool_names: ["a"] } }, ...many(MESSAGES, () => ({ type: 1 }))] }),
    () => ({ model: "m", input: "hi", tools: [{ type: "mcp", server_label: "crm", server_url: "http://127.0.0.1:9/mcp", allowed_tools: { tool_names: ["a"] } }, ...many(MESSAGES, () => goodTool)] }),
  ],
};

let gateway: BunGateway;
const databaseUrl = sqliteTestUrl();

beforeAll(async () => {
  gateway = await startBunGateway(databaseUrl);
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  await removeSqliteTestDatabase(databaseUrl);
});

/** Sends `text` to `path` while polling `/health`; the answer and the longest `/health` wait, in ms. */
async function sendTimed(path: string, text: string): Promise<{ status: number; body: { error?: { message: string; param: string | null } }; longestHealthMs: number }> {
  let longest = 0;
  let sending = true;
  const poll = (async () => {
    while (sending) {
      const started = performance.now();
      await fetch(`${gateway.url}/health`).then((response) => response.arrayBuffer());
      longest = Math.max(longest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  const response = await fetch(`${gateway.url}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-gateway-api-key": gateway.adminKey,
      "x-gateway-provider": "openai-compatible",
      // A closed port: a valid body is parsed, checked and sent, and fails fast upstream.
      "x-gateway-custom-host": "http://127.0.0.1:9/v1",
    },
    body: text,
  });
  const body = await response.json();
  sending = false;
  await poll;
  return { status: response.status, body, longestHealthMs: longest };
}

describe("hostile request bodies under npm start", () => {
  for (const [route, cases] of [
    ["/v1/chat/completions", bodies],
    ["/v1/responses", responsesBodies],
  ] as const) {
    for (const [name, [hostileBody, validBody]] of Object.entries(cases)) {
      it(`${route}: ${name} is refused with the first failures named, without stalling the gateway`, async () => {
        const text = JSON.stringify(hostileBody());
        const valid = await sendTimed(route, JSON.stringify(validBody()));
        expect(valid.status, JSON.stringify(valid.body)).toBeGreaterThanOrEqual(400);
        expect(valid.body.error?.param ?? null).toBeNull();
        const hostile = await sendTimed(route, text);
        expect(hostile.status, JSON.stringify(hostile.body)).toBe(400);
        expect(hostile.body.error?.message.length).toBeLessThan(500);
        console.log(`[hostile-bodies] ${route} ${name} (${(text.length / 1e6).toFixed(1)} MB): /health waited at most ${hostile.longestHealthMs.toFixed(0)} ms; ${valid.longestHealthMs.toFixed(0)} ms during its valid twin`);
        // Receiving 26 MB alone moves /health by hundreds of ms from run to run on two shared
        // cores: the bound is the valid twin's wait with a margin, and never under a second
        // (unbounded, the checks of these bodies stalled /health for 4 to 18 s).
        expect(hostile.longestHealthMs).toBeLessThan(Math.max(1_000, valid.longestHealthMs + 250));
        expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
      }, 60_000);
    }
  }

  it("names where each failure is", async () => {
    const metadata = await sendTimed("/v1/chat/completions", JSON.stringify(bodies["1.5M metadata keys (26 MB)"]![0]()));
    expect(metadata.body.error?.message).toMatch(/more than 10000 keys/);
    const late = await sendTimed("/v1/chat/completions", JSON.stringify(bodies["a bad message after 300,000 good ones"]![0]()));
    expect(late.body.error?.param).toBe(`messages.${MESSAGES}.role`);
    const tools = await sendTimed("/v1/responses", JSON.stringify(responsesBodies["an mcp tool then 300,000 bad tools"]![0]()));
    expect(tools.body.error?.param).toBe("tools.1.type");
    const sixteen = await sendTimed("/v1/chat/completions", JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], metadata: Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, "v"])) }));
    expect(sixteen.body.error).toMatchObject({ param: "metadata", message: expect.stringMatching(/<=16 properties/) });
  }, 60_000);
});
