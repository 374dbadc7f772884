import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBunGateway, type BunGateway } from "./support/bun-gateway.ts";
import { removeSqliteTestDatabase, sqliteTestUrl } from "./support/databases.ts";

/**
 * A refused body is answered from its first failures: under `npm start`, a chat body of 1 MB or
 * 8 MB that is invalid at its start, its middle, its end, or in hundreds of places is answered in
 * no more time than the same body made valid takes to be read, checked and sent on (to a closed
 * port, which fails at once), and a small request sent meanwhile waits no longer than it does
 * during the valid body. Times are medians of several runs: two shared cores move single ones
 * by tens of milliseconds.
 */
const RUNS = 5;
const message = (index: number) => ({ role: index % 2 ? "assistant" : "user", content: `m${index}` });

/** A chat body of about `bytes`, valid, and the ways to break it. */
function bodies(bytes: number): Record<string, { text: string; param: string | null }> {
  const count = Math.round(bytes / JSON.stringify(message(0)).length);
  const messages = Array.from({ length: count }, (_, index) => message(index));
  const broken = (indices: number[]) => JSON.stringify({ model: "m", messages: messages.map((each, index) => (indices.includes(index) ? { ...each, role: "robot" } : each)) });
  const spread = Array.from({ length: 500 }, (_, index) => Math.floor((index * count) / 500));
  const middle = Math.floor(count / 2);
  return {
    valid: { text: JSON.stringify({ model: "m", messages }), param: null },
    "invalid at the start": { text: broken([0]), param: "messages.0.role" },
    "invalid in the middle": { text: broken([middle]), param: `messages.${middle}.role` },
    "invalid at the end": { text: broken([count - 1]), param: `messages.${count - 1}.role` },
    "invalid in 500 places": { text: broken(spread), param: "messages.0.role" },
  };
}

let gateway: BunGateway;
const databaseUrl = sqliteTestUrl();

beforeAll(async () => {
  gateway = await startBunGateway(databaseUrl);
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  await removeSqliteTestDatabase(databaseUrl);
});

const headers = () => ({
  "content-type": "application/json",
  "x-gateway-api-key": gateway.adminKey,
  "x-gateway-provider": "openai-compatible",
  "x-gateway-custom-host": "http://127.0.0.1:9/v1",
});

interface Timed {
  status: number;
  param: string | null;
  ms: number;
  /** The longest wait of a small request sent again and again while this one was handled. */
  longestSmallMs: number;
}

/** Sends one body while a small (refused) chat request is sent over and over beside it. */
async function send(text: string): Promise<Timed> {
  let longestSmallMs = 0;
  let sending = true;
  const small = (async () => {
    while (sending) {
      const started = performance.now();
      await fetch(`${gateway.url}/v1/chat/completions`, { method: "POST", headers: headers(), body: '{"model":"m","messages":[]}' }).then((response) => response.arrayBuffer());
      longestSmallMs = Math.max(longestSmallMs, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  const started = performance.now();
  const response = await fetch(`${gateway.url}/v1/chat/completions`, { method: "POST", headers: headers(), body: text });
  const body = (await response.json()) as { error?: { param?: string | null } };
  const ms = performance.now() - started;
  sending = false;
  await small;
  return { status: response.status, param: body.error?.param ?? null, ms, longestSmallMs };
}

/**
 * Waits until the gateway is idle again: the log of a large body is written after its answer,
 * and would otherwise be timed as part of the next request.
 */
async function settle(): Promise<void> {
  let quick = 0;
  for (let attempt = 0; attempt < 100 && quick < 3; attempt += 1) {
    const started = performance.now();
    await fetch(`${gateway.url}/health`).then((response) => response.arrayBuffer());
    quick = performance.now() - started < 5 ? quick + 1 : 0;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe("a refused chat body under npm start", () => {
  for (const megabytes of [1, 8]) {
    it(`of ${megabytes} MB is answered in no more time than its valid twin takes, without holding up a small request`, async () => {
      const cases = bodies(megabytes * 1024 * 1024);
      const runs: Record<string, Timed[]> = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
      // Rounds of every case in turn, each round starting with another case, so that a busy moment
      // of the machine falls on all of them alike; each request is sent to an idle gateway.
      const names = Object.keys(cases);
      for (let round = 0; round < RUNS; round += 1) {
        for (let index = 0; index < names.length; index += 1) {
          const name = names[(index + round) % names.length]!;
          await settle();
          runs[name]!.push(await send(cases[name]!.text));
        }
      }
      const valid = runs.valid!;
      for (const timed of valid) expect(timed.status, "the valid body goes upstream (a closed port)").toBeGreaterThanOrEqual(500);
      const validMs = median(valid.map((timed) => timed.ms));
      const validSmallMs = median(valid.map((timed) => timed.longestSmallMs));
      for (const [name, { param }] of Object.entries(cases)) {
        if (name === "valid") continue;
        for (const timed of runs[name]!) expect({ status: timed.status, param: timed.param }).toEqual({ status: 400, param });
        const ms = median(runs[name]!.map((timed) => timed.ms));
        const smallMs = median(runs[name]!.map((timed) => timed.longestSmallMs));
        console.log(`[refusal-time] ${megabytes} MB ${name}: ${ms.toFixed(1)} ms (valid ${validMs.toFixed(1)} ms); a small request waited at most ${smallMs.toFixed(1)} ms (during the valid body ${validSmallMs.toFixed(1)} ms)`);
        // The margin is for the machine's noise, not for the refusal's work.
        expect(ms, `${name}: the refusal's median time against the valid body's`).toBeLessThanOrEqual(validMs * 1.5 + 25);
        expect(smallMs, `${name}: a small request's longest wait against its wait during the valid body`).toBeLessThanOrEqual(validSmallMs * 1.5 + 50);
      }
    }, 180_000);
  }
});
