/**
 * The bench's `mcp` target: a `tools/call` sent to the bench's MCP server (`mcp-server.ts`)
 * directly, and the same call through the gateway's MCP gateway (`POST /mcp/{server_label}`, the
 * server stored with `POST /v1/mcp-servers`, a service key as `Authorization: Bearer`). Each side
 * holds MCP sessions opened beforehand (`initialize`, `notifications/initialized`), one per
 * connection, so what is timed is the call alone. Sequential calls at one connection alternate
 * side by side; then each side is loaded with `connections` closed-loop connections, the sides
 * alternating round by round, each call timed, and the CPU time of the gateway and of the server
 * read around each run.
 */
import { Agent } from "node:http";
import { performance } from "node:perf_hooks";
import { timeRequest, type Client, type LoadResult } from "./http-driver.ts";
import { LOOKUP_TEXT, PROTOCOL_VERSIONS, toolCallBody } from "./mcp-server.ts";
import { median, quantile, round } from "./stats.ts";

/** The label the bench stores its MCP server under. */
export const MCP_LABEL = "bench";

export type McpSide = "direct" | "gateway";

/** Where one side's calls go: the URL and the headers of every request but the session. */
export interface McpEndpoint {
  side: McpSide;
  url: string;
  headers: Record<string, string>;
}

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

export function directMcpEndpoint(serverUrl: string): McpEndpoint {
  return { side: "direct", url: serverUrl, headers: { ...MCP_HEADERS } };
}

/** Stores the bench's MCP server in the gateway and makes a service key for it; the endpoint that key calls. */
export async function gatewayMcpEndpoint(gatewayUrl: string, adminKey: string, serverUrl: string): Promise<McpEndpoint> {
  const admin = async (path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const response = await fetch(`${gatewayUrl}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-gateway-api-key": adminKey }, body: JSON.stringify(body) });
    const text = await response.text();
    if (response.status !== 201) throw new Error(`bench: POST ${path} answered ${response.status}: ${text.slice(0, 600)}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  await admin("/v1/mcp-servers", { server_label: MCP_LABEL, server_url: serverUrl, require_approval: "never" });
  const { key } = await admin("/v1/api-keys", { name: "bench mcp", role: "service" });
  return { side: "gateway", url: `${gatewayUrl}/mcp/${MCP_LABEL}`, headers: { ...MCP_HEADERS, authorization: `Bearer ${String(key)}` } };
}

const post = (endpoint: McpEndpoint, body: string, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(endpoint.url, { method: "POST", headers: { ...endpoint.headers, ...headers }, body });

/** Opens an MCP session as a client does (`initialize`, then `notifications/initialized`); its id. */
export async function openSession(endpoint: McpEndpoint): Promise<string> {
  const initialize = JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: PROTOCOL_VERSIONS[0], capabilities: {}, clientInfo: { name: "bench", version: "1.0.0" } } });
  const opened = await post(endpoint, initialize);
  const text = await opened.text();
  const session = opened.headers.get("mcp-session-id");
  if (opened.status !== 200 || session === null || !text.includes('"protocolVersion"')) {
    throw new Error(`bench: ${endpoint.side} MCP initialize answered ${opened.status}, session ${session ?? "none"}:\n${text.slice(0, 600)}`);
  }
  const initialized = await post(endpoint, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), { "mcp-session-id": session });
  await initialized.text();
  if (initialized.status !== 202) throw new Error(`bench: ${endpoint.side} MCP notifications/initialized answered ${initialized.status}`);
  return session;
}

/** True when `text` is the answer to the bench's call `id`: that id, the tool's text, no error. */
export function isToolAnswer(text: string, id: number): boolean {
  let message: { jsonrpc?: unknown; id?: unknown; result?: { content?: Array<{ text?: unknown }>; isError?: unknown } };
  try {
    message = JSON.parse(text) as typeof message;
  } catch {
    return false;
  }
  return message.jsonrpc === "2.0" && message.id === id && message.result?.isError !== true && message.result?.content?.[0]?.text === LOOKUP_TEXT;
}

/** One call on a session, checked before any timing: a fast error must never pass for a fast hop. */
export async function checkCall(endpoint: McpEndpoint, session: string): Promise<void> {
  const answered = await post(endpoint, toolCallBody(1), { "mcp-session-id": session });
  const text = await answered.text();
  if (answered.status !== 200 || !isToolAnswer(text, 1)) throw new Error(`bench: ${endpoint.side} answered ${answered.status} to an MCP tools/call:\n${text.slice(0, 600)}`);
}

/** A session's caller: the side's keep-alive pool and its headers with the session's id. */
interface Caller {
  client: Client;
  nextId: number;
}

function caller(endpoint: McpEndpoint, session: string, agent: Agent): Caller {
  const headers = { ...endpoint.headers, "mcp-session-id": session };
  return { client: { target: { name: "mcp", url: endpoint.url, headers }, agent }, nextId: 2 };
}

/** True when a JSON-RPC answer's text carries `"id":<id>` as a whole member (in any place of the object). */
export function carriesId(text: string, id: number): boolean {
  return text.includes(`"id":${id},`) || text.includes(`"id":${id}}`);
}

/**
 * One timed call; the time, or undefined when it failed. Checked by status and id only, to keep
 * the client's own work small: `checkCall` read the whole answer before any timing.
 */
async function timedCall(call: Caller): Promise<number | undefined> {
  const id = call.nextId;
  call.nextId += 1;
  const timed = await timeRequest(call.client, toolCallBody(id)).catch(() => undefined);
  return timed?.status === 200 && carriesId(timed.body, id) ? timed.totalMs : undefined;
}

/** Closed-loop load: one connection per session, back-to-back calls for `seconds`; every call's time goes to `latencies`. */
export async function mcpLoad(endpoint: McpEndpoint, sessions: readonly string[], seconds: number, latencies: number[] = []): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: sessions.length, maxFreeSockets: sessions.length });
  const callers = sessions.map((session) => caller(endpoint, session, agent));
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let requests = 0;
  let errors = 0;
  const worker = async (call: Caller): Promise<void> => {
    while (performance.now() < deadline) {
      const ms = await timedCall(call);
      if (ms === undefined) errors += 1;
      else {
        requests += 1;
        latencies.push(ms);
      }
    }
  };
  await Promise.all(callers.map(worker));
  agent.destroy();
  const elapsed = (performance.now() - started) / 1000;
  return { requests, errors, seconds: elapsed, rps: requests / elapsed };
}

/** What one side's runs gave, before they are summarised. */
export interface McpSamples {
  /** Sequential calls at one connection, ms. */
  latencyMs: number[];
  /** Every call of the loaded runs, ms. */
  loadLatencyMs: number[];
  load: LoadResult[];
  /** Per loaded run: the side's own process (the server for direct, the gateway for gateway), µs per call. */
  cpuUsPerCall: number[];
  /** Per loaded run: the MCP server's process, µs per call. */
  serverCpuUsPerCall: number[];
  /** Failed calls of the sequential phase. */
  sequentialErrors: number;
}

export interface McpSideFigures {
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencySamples: number;
  /** Calls per second at `connections`, median of the rounds, then each round. */
  rps: number;
  rpsRounds: number[];
  loadP50Ms: number;
  loadP99Ms: number;
  loadSamples: number;
  /** The side's own process's CPU time per call under load (all threads), median of the rounds. */
  cpuUsPerCall: number;
  cpuRounds: number[];
  /** The MCP server's CPU time per call in the same runs. */
  serverCpuUsPerCall: number;
  errors: number;
}

export interface McpFigures {
  connections: number;
  direct: McpSideFigures;
  gateway: McpSideFigures;
  /** gateway − direct, ms: at one connection, and under the load. */
  addedP50Ms: number;
  addedP99Ms: number;
  addedLoadP50Ms: number;
  addedLoadP99Ms: number;
}

export function emptyMcpSamples(): McpSamples {
  return { latencyMs: [], loadLatencyMs: [], load: [], cpuUsPerCall: [], serverCpuUsPerCall: [], sequentialErrors: 0 };
}

function sideFigures(own: McpSamples): McpSideFigures {
  const rpsRounds = own.load.map((result) => result.rps);
  return {
    latencyP50Ms: round(quantile(own.latencyMs, 0.5)),
    latencyP99Ms: round(quantile(own.latencyMs, 0.99)),
    latencySamples: own.latencyMs.length,
    rps: round(median(rpsRounds), 0),
    rpsRounds: rpsRounds.map((value) => round(value, 0)),
    loadP50Ms: round(quantile(own.loadLatencyMs, 0.5)),
    loadP99Ms: round(quantile(own.loadLatencyMs, 0.99)),
    loadSamples: own.loadLatencyMs.length,
    cpuUsPerCall: round(median(own.cpuUsPerCall), 1),
    cpuRounds: own.cpuUsPerCall.map((value) => round(value, 1)),
    serverCpuUsPerCall: round(median(own.serverCpuUsPerCall), 1),
    errors: own.sequentialErrors + own.load.reduce((sum, result) => sum + result.errors, 0),
  };
}

/** The figures of both sides; what the gateway adds is taken from the unrounded quantiles. */
export function summarizeMcp(samples: Record<McpSide, McpSamples>, connections: number): McpFigures {
  const added = (pick: (own: McpSamples) => number[], q: number): number => round(quantile(pick(samples.gateway), q) - quantile(pick(samples.direct), q));
  return {
    connections,
    direct: sideFigures(samples.direct),
    gateway: sideFigures(samples.gateway),
    addedP50Ms: added((own) => own.latencyMs, 0.5),
    addedP99Ms: added((own) => own.latencyMs, 0.99),
    addedLoadP50Ms: added((own) => own.loadLatencyMs, 0.5),
    addedLoadP99Ms: added((own) => own.loadLatencyMs, 0.99),
  };
}

export interface McpRunOptions {
  connections: number;
  /** Sequential calls per side at one connection. */
  latencyRequests: number;
  rounds: number;
  /** Seconds per loaded run (`BENCH_MCP_SECONDS`). */
  seconds: number;
  /** Seconds of discarded load per side before anything is timed. */
  warmupSeconds: number;
}

const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));
/** After a loaded run of the gateway: its log writer drains, and that CPU time is counted with the run. */
const SETTLE_MS = 1000;
/** After one of the server alone, which does nothing once the calls stop. */
const DIRECT_SETTLE_MS = 250;

/**
 * The whole MCP measurement. `cpuSeconds` reads a process's CPU time: `side` for the side's own
 * process (the server for direct, the gateway for gateway), `server` for the MCP server.
 */
export async function measureMcp(
  endpoints: Record<McpSide, McpEndpoint>,
  options: McpRunOptions,
  cpuSeconds: (of: McpSide | "server") => number,
  progress: (line: string) => void,
): Promise<McpFigures> {
  const sides: McpSide[] = ["direct", "gateway"];
  const sessions = {} as Record<McpSide, string[]>;
  for (const side of sides) {
    sessions[side] = [];
    for (let i = 0; i < options.connections; i += 1) sessions[side].push(await openSession(endpoints[side]));
    await checkCall(endpoints[side], sessions[side][0]!);
  }
  const samples: Record<McpSide, McpSamples> = { direct: emptyMcpSamples(), gateway: emptyMcpSamples() };

  progress(`MCP: warming up (${options.warmupSeconds} s of ${options.connections} connections per side)`);
  for (const side of sides) await mcpLoad(endpoints[side], sessions[side], options.warmupSeconds);
  await pause(SETTLE_MS);

  progress(`MCP: ${options.latencyRequests} sequential tools/call per side at 1 connection, alternating`);
  const agents = sides.map(() => new Agent({ keepAlive: true, maxSockets: 1 }));
  const single = sides.map((side, i) => ({ side, call: caller(endpoints[side], sessions[side][0]!, agents[i]!) }));
  for (let i = 0; i < 100; i += 1) for (const { call } of single) await timedCall(call); // the connection and the path warm
  for (let i = 0; i < options.latencyRequests; i += 1) {
    for (const { side, call } of i % 2 === 0 ? single : [...single].reverse()) {
      const ms = await timedCall(call);
      if (ms === undefined) samples[side].sequentialErrors += 1;
      else samples[side].latencyMs.push(ms);
    }
  }
  for (const agent of agents) agent.destroy();

  for (let round = 0; round < options.rounds; round += 1) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      const own = samples[side];
      const before = { side: cpuSeconds(side), server: cpuSeconds("server") };
      const result = await mcpLoad(endpoints[side], sessions[side], options.seconds, own.loadLatencyMs);
      await pause(side === "gateway" ? SETTLE_MS : DIRECT_SETTLE_MS);
      own.load.push(result);
      own.cpuUsPerCall.push(((cpuSeconds(side) - before.side) * 1e6) / result.requests);
      own.serverCpuUsPerCall.push(((cpuSeconds("server") - before.server) * 1e6) / result.requests);
      progress(`MCP round ${round + 1}/${options.rounds}: ${side} ${Math.round(result.rps)} calls/s at ${options.connections} connections, ${result.errors} errors`);
    }
  }
  return summarizeMcp(samples, options.connections);
}
