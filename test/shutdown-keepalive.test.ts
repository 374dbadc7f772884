import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "@libsql/client";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { startBunGateway } from "./support/bun-gateway.ts";
import { removeSqliteTestDatabase, sqliteTestUrl } from "./support/databases.ts";

/**
 * SIGTERM while keep-alive clients are busy: requests already written to open connections are
 * answered, never reset, and their answers tell the clients the connection ends.
 */

const CONNECTIONS = 24;
const SLOW_MS = 800;
const databaseUrl = sqliteTestUrl();
/** An OpenAI-format upstream that answers "slow" after SLOW_MS and anything else at once. */
let upstream: http.Server;
let upstreamUrl: string;

beforeAll(async () => {
  upstream = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += String(chunk)));
    request.on("end", () => {
      const content = JSON.parse(body).messages[0].content as string;
      const completion = {
        id: "chatcmpl-1",
        object: "chat.completion",
        created: 1,
        model: "gpt-4o-mini",
        choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      };
      const answer = () => response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(completion));
      setTimeout(answer, content === "slow" ? SLOW_MS : 0);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await new Promise((resolve) => upstream?.close(resolve));
  await removeSqliteTestDatabase(databaseUrl);
});

interface Outcome {
  status: number | string;
  connection?: string;
}

describe("SIGTERM with busy keep-alive connections (npm start, Bun)", () => {
  it("answers every request already sent on open connections, resets none, and logs each answer", async () => {
    const gateway = await startBunGateway(databaseUrl);
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const send = (content: string): Promise<Outcome> =>
      new Promise((resolve) => {
        const body = JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content }] });
        const request = http.request(
          `${gateway.url}/v1/chat/completions`,
          {
            method: "POST",
            agent,
            headers: {
              "x-gateway-api-key": gateway.adminKey,
              "x-gateway-provider": "openai",
              "x-gateway-custom-host": upstreamUrl,
              "content-type": "application/json",
              "content-length": String(Buffer.byteLength(body)),
            },
          },
          (response) => {
            response.resume();
            response.on("end", () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }));
            response.on("error", (error: NodeJS.ErrnoException) => resolve({ status: error.code ?? error.message }));
          },
        );
        request.on("error", (error: NodeJS.ErrnoException) => resolve({ status: error.code ?? error.message }));
        request.end(body);
      });

    // Open every connection, then leave half of them idle and half with a slow request in flight.
    const warm = await Promise.all(Array.from({ length: CONNECTIONS }, () => send("quick")));
    expect(warm.every((outcome) => outcome.status === 200)).toBe(true);
    const slow = Array.from({ length: CONNECTIONS / 2 }, () => send("slow"));
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The signal and new requests on the idle connections cross each other.
    gateway.child.kill("SIGTERM");
    const sentAtSignal = Array.from({ length: CONNECTIONS / 2 }, () => send("quick"));
    const outcomes = await Promise.all([...slow, ...sentAtSignal]);
    const exitCode = await new Promise<number | null>((resolve) => gateway.child.on("exit", resolve));
    agent.destroy();

    expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(CONNECTIONS).fill(200));
    // Every answer given after the signal closes its connection, so no client reuses one.
    expect(outcomes.slice(0, CONNECTIONS / 2).map((outcome) => outcome.connection)).toEqual(Array(CONNECTIONS / 2).fill("close"));
    expect(exitCode).toBe(0);
    expect(gateway.stderr()).toBe("");
    const db = createClient({ url: databaseUrl });
    try {
      const rows = await db.execute("select count(*) from logs where status = 200");
      expect(Number(rows.rows[0]?.[0])).toBe(CONNECTIONS * 2);
    } finally {
      db.close();
    }
  }, 60_000);
});
