/**
 * The built-in driver: node:http with keep-alive agents. node:http rather than fetch because its
 * per-request overhead is lower and steadier, which matters when we look for 0.1 ms differences.
 */
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import type { Target } from "./targets.ts";

export interface Client {
  target: Target;
  agent: Agent;
}

/** One keep-alive pool per target; `connections` caps the sockets it opens. */
export function createClient(target: Target, connections: number): Client {
  return { target, agent: new Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections }) };
}

export interface Timed {
  status: number;
  /** Send to last byte, ms. */
  totalMs: number;
  /** Send to the chunk holding the first content-bearing `data:` event, ms; NaN when none came. */
  firstTokenMs: number;
  body: string;
}

/** True when an SSE event block carries a chat chunk with non-empty delta content. */
function hasContent(event: string): boolean {
  for (const line of event.split("\n")) {
    if (!line.startsWith("data:")) continue;
    const data = line.slice(5).trim();
    if (data === "[DONE]") return false;
    try {
      const chunk = JSON.parse(data) as { choices?: Array<{ delta?: { content?: string | null } }> };
      const content = chunk.choices?.[0]?.delta?.content;
      if (typeof content === "string" && content.length > 0) return true;
    } catch {
      return false;
    }
  }
  return false;
}

/** Sends one POST and times it. Never rejects on HTTP status; rejects on socket errors. */
export function timeRequest(client: Client, body: string, watchFirstToken = false): Promise<Timed> {
  const { target, agent } = client;
  return new Promise((done, fail) => {
    const started = performance.now();
    let firstTokenMs = Number.NaN;
    let pending = "";
    const parts: string[] = [];
    const req = request(target.url, { method: "POST", agent, headers: target.headers }, (res) => {
      res.setEncoding("utf8");
      res.on("data", (text: string) => {
        const now = performance.now();
        parts.push(text);
        if (!watchFirstToken || !Number.isNaN(firstTokenMs)) return;
        pending += text;
        const events = pending.split("\n\n");
        pending = events.pop() ?? "";
        if (events.some(hasContent)) firstTokenMs = now - started;
      });
      res.on("end", () => {
        done({ status: res.statusCode ?? 0, totalMs: performance.now() - started, firstTokenMs, body: parts.join("") });
      });
      res.on("error", fail);
    });
    req.on("error", fail);
    req.end(body);
  });
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
}

/** Closed-loop load: `connections` workers each send back-to-back requests for `seconds`. */
export async function runLoad(target: Target, body: string, connections: number, seconds: number): Promise<LoadResult> {
  const client = createClient(target, connections);
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let requests = 0;
  let errors = 0;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const result = await timeRequest(client, body).catch(() => undefined);
      if (result?.status === 200) requests += 1;
      else errors += 1;
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (performance.now() - started) / 1000;
  client.agent.destroy();
  return { requests, errors, seconds: elapsed, rps: requests / elapsed };
}
