import { randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ECHO_ENCODING_NAMES, ECHO_ENCODINGS, encodedForms, headerSecret, type EchoEncoding } from "./support/echo-encodings.ts";
import { call, startGateway, type RunningGateway } from "./support/harness.ts";
import { startRawUpstream, type RawUpstream } from "./support/raw-upstream.ts";
import { testPostgresServerUrl } from "./support/services.ts";

/**
 * An upstream that echoes the key it was sent, in every encoding a body can carry it (as sent,
 * URL-encoded, JSON-escaped in each way JSON allows, nested), in an error answer (JSON or text)
 * or in an `error` event inside a 200 stream. Keys come from fast-check over the printable ASCII
 * range. No form of any key may reach the client, the stored log, the export, or the spool
 * (records written while the store refuses connections).
 */

const SHARED_SERVER = testPostgresServerUrl();
const SHAPES = ["json error", "text error", "stream error event"] as const;
type Shape = (typeof SHAPES)[number];

const database = `gw_echo_${randomBytes(5).toString("hex")}`;
let upstream: RawUpstream;
let gateway: RunningGateway;
const sentKeys: string[] = [];

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${SHARED_SERVER}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  upstream = await startRawUpstream((body, res, req) => {
    const [shape, encoding] = String(body?.messages?.[0]?.content ?? "").split("|") as [Shape, EchoEncoding];
    const echo = ECHO_ENCODINGS[encoding](String(req.headers.authorization));
    if (shape === "text error") {
      res.writeHead(401, { "content-type": "text/plain" });
      return res.end(`Unauthorized. You sent ${echo}`);
    }
    const errorJson = `{"error":{"message":"Incorrect API key provided: ${echo}","type":"invalid_request_error","code":"invalid_api_key","param":null}}`;
    if (shape === "json error") {
      res.writeHead(401, { "content-type": "application/json" });
      return res.end(errorJson);
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n`);
    res.end(`event: error\ndata: ${errorJson}\n\n`);
  });
  await admin(`create database "${database}"`);
  gateway = await startGateway({ GATEWAY_DATABASE_URL: `${SHARED_SERVER}/${database}`, GATEWAY_KEY_CACHE_TTL_MS: 100 });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  await admin(`alter database "${database}" allow_connections true`);
  await admin(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${database}'`);
  await admin(`drop database if exists "${database}"`);
});

/** Every form of every key sent so far that occurs in `text`. */
function leaked(text: string): string[] {
  return sentKeys.flatMap((key) => [...encodedForms(key), ...encodedForms(`Bearer ${key}`)]).filter((form) => text.includes(form));
}

/** One request whose upstream echoes `key` in `encoding`, in an answer of `shape`; returns what the client got. */
async function echoRun(key: string, encoding: EchoEncoding, shape: Shape): Promise<{ text: string; logId: string | null }> {
  sentKeys.push(key);
  const stream = shape === "stream error event";
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-gateway-api-key": gateway.adminKey,
      "x-gateway-provider": "openai",
      "x-gateway-custom-host": upstream.url,
      authorization: `Bearer ${key}`,
    },
    body: JSON.stringify({ model: "gpt-4o-mini", stream, messages: [{ role: "user", content: `${shape}|${encoding}` }] }),
  });
  const text = (await response.text()) + JSON.stringify([...response.headers.entries()]);
  expect(response.status).toBe(stream ? 200 : 401);
  expect(text).toContain("[redacted]");
  return { text, logId: response.headers.get("x-gateway-log-id") };
}

const runs = fc.tuple(headerSecret, fc.constantFrom(...ECHO_ENCODING_NAMES), fc.constantFrom(...SHAPES));

describe("an upstream echoing the key in every encoding", () => {
  it("reaches neither the client, nor the stored log, nor the export", async () => {
    const logIds: string[] = [];
    await fc.assert(
      fc.asyncProperty(runs, async ([key, encoding, shape]) => {
        const answer = await echoRun(key, encoding, shape);
        expect(leaked(answer.text)).toEqual([]);
        if (answer.logId) logIds.push(answer.logId);
      }),
      { numRuns: 60 },
    );
    await gateway.flushLogs();
    for (const id of logIds) {
      const record = await call(gateway, "GET", `/v1/logs/${id}`);
      expect(record.status).toBe(200);
      expect(leaked(JSON.stringify(record.body))).toEqual([]);
    }
    const exported = await fetch(`${gateway.url}/v1/logs/export?format=jsonl&include_bodies=true`, { headers: { "x-gateway-api-key": gateway.adminKey } });
    const lines = (await exported.text()).trim().split("\n");
    expect(lines.length).toBeGreaterThanOrEqual(logIds.length);
    expect(leaked(lines.join("\n"))).toEqual([]);
    const csv = await fetch(`${gateway.url}/v1/logs/export?format=csv&include_bodies=true`, { headers: { "x-gateway-api-key": gateway.adminKey } });
    expect(leaked(await csv.text())).toEqual([]);
  }, 120_000);

  it("reaches not the spool either, while the store refuses connections", async () => {
    await admin(`alter database "${database}" allow_connections false`);
    await admin(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${database}'`);
    const spoolDir = join(gateway.gateway.deps.config.GATEWAY_DATA_DIR, "log-spool");
    const spooledIds: string[] = [];
    try {
      await fc.assert(
        fc.asyncProperty(runs, async ([key, encoding, shape]) => {
          const answer = await echoRun(key, encoding, shape);
          expect(leaked(answer.text)).toEqual([]);
          if (answer.logId) spooledIds.push(answer.logId);
        }),
        { numRuns: 25 },
      );
      await gateway.flushLogs();
      const spooled = async () => {
        const files = (await readdir(spoolDir).catch(() => [] as string[])).filter((name) => name.endsWith(".jsonl"));
        return (await Promise.all(files.map((name) => readFile(join(spoolDir, name), "utf8")))).join("\n");
      };
      const deadline = Date.now() + 10_000;
      const allSpooled = async () => {
        const text = await spooled();
        return spooledIds.every((id) => text.includes(id));
      };
      while (!(await allSpooled()) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(spooledIds).toHaveLength(25);
      expect(await allSpooled()).toBe(true);
      const text = await spooled();
      expect(text).toContain("[redacted]");
      expect(leaked(text)).toEqual([]);
    } finally {
      await admin(`alter database "${database}" allow_connections true`);
    }
  }, 120_000);
});
