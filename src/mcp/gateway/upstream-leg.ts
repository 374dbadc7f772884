/**
 * The gateway as an MCP client of one stored server, at the level of messages: one JSON-RPC
 * message posted over Streamable HTTP with the server's own credentials and session, its answer
 * read as JSON or as a stream of events, each message bounded in size, the whole bounded in time
 * and ended when the client goes away. Redirects are refused: they could carry the credentials
 * elsewhere. https://modelcontextprotocol.io/specification/2025-06-18/basic/transports
 */
import type { FetchLike } from "../../net/upstream-call.ts";
import { createSseParser } from "../../streams/sse.ts";
import { asMessage, type JsonRpcMessage } from "./json-rpc.ts";
import type { UpstreamLeg } from "./session-store.ts";

/** A stored server as the gateway reaches it: its secrets opened, for its own URL only. */
export interface UpstreamServer {
  label: string;
  url: string;
  headers: Readonly<Record<string, string>>;
}

export interface LegOptions {
  fetch: FetchLike;
  /** The client's request: aborted when it goes away. */
  signal: AbortSignal;
  timeoutMs: number;
  /** The largest message the gateway reads from the server. */
  maxMessageBytes: number;
}

/** What the server answered: its session id (on `initialize`) and its messages as they come. */
export interface LegAnswer {
  status: number;
  sessionId: string | null;
  streamed: boolean;
  messages: AsyncIterable<JsonRpcMessage>;
  /** Done with the answer: what the server still sends is read to its end in the background (briefly), so its connection is reused. */
  close(): void;
  /** Ends the exchange now: the client left. */
  abort(): void;
}

export type LegFailure =
  /** The server no longer knows the session (it restarted): initialise again. */
  | { kind: "session-lost" }
  | { kind: "failed"; status: number | null; message: string };

/** Posts `message`; the server's answer or why there is none. Never throws. */
export async function postMessage(server: UpstreamServer, leg: UpstreamLeg | null, message: JsonRpcMessage, options: LegOptions): Promise<{ ok: true; answer: LegAnswer } | { ok: false; failure: LegFailure }> {
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  options.signal.addEventListener("abort", abort, { once: true });
  const timer = setTimeout(() => controller.abort(new Error("timeout")), options.timeoutMs);
  const release = (): void => {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", abort);
  };
  const close = (): void => {
    release();
    controller.abort();
  };
  /** Why reading stopped, in the client's words: the deadline, the client, or the server's own failure. */
  const why = (error: unknown): Error =>
    options.signal.aborted
      ? new Error(`MCP server ${server.label}: the client went away.`)
      : controller.signal.aborted
        ? new Error(`MCP server ${server.label}: no answer within ${options.timeoutMs} ms.`)
        : error instanceof Error
          ? error
          : new Error(String(error));
  let response: Response;
  try {
    response = await options.fetch(server.url, {
      method: "POST",
      headers: legHeaders(server, leg),
      body: JSON.stringify(message),
      signal: controller.signal,
      redirect: "manual",
    });
  } catch {
    close();
    const why = options.signal.aborted ? "the client went away" : controller.signal.aborted ? `no answer within ${options.timeoutMs} ms` : "the server could not be reached";
    return { ok: false, failure: { kind: "failed", status: null, message: `MCP server ${server.label}: ${why}.` } };
  }
  if (response.status === 404 && leg?.sessionId) {
    close();
    return { ok: false, failure: { kind: "session-lost" } };
  }
  const type = response.headers.get("content-type") ?? "";
  const sessionId = response.headers.get("mcp-session-id");
  const streamed = type.includes("text/event-stream");
  if (response.status >= 300 && !type.includes("json") && !streamed) {
    close();
    const why = response.status < 400 ? "answered a redirect, which the gateway does not follow" : `answered HTTP ${response.status}`;
    return { ok: false, failure: { kind: "failed", status: response.status, message: `MCP server ${server.label} ${why}.` } };
  }
  const body = response.body;
  const messages = body === null || response.status === 202 ? none() : streamed ? streamMessages(body, options.maxMessageBytes, server.label) : jsonMessages(body, options.maxMessageBytes, server.label);
  return { ok: true, answer: { status: response.status, sessionId, streamed, messages: closing(messages, release, why), close: release, abort: close } };
}

/** Opens the server's own stream of messages for a session (a client's GET), as it sends it. */
export async function openServerStream(server: UpstreamServer, leg: UpstreamLeg, options: Omit<LegOptions, "timeoutMs" | "maxMessageBytes">): Promise<Response | null> {
  try {
    const response = await options.fetch(server.url, { method: "GET", headers: { ...legHeaders(server, leg), accept: "text/event-stream" }, signal: options.signal, redirect: "manual" });
    return response;
  } catch {
    return null;
  }
}

/** Ends the server's session (a client's DELETE). Never throws. */
export async function endServerSession(server: UpstreamServer, leg: UpstreamLeg, options: Omit<LegOptions, "maxMessageBytes">): Promise<void> {
  if (!leg.sessionId) return;
  const signal = AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]);
  await options.fetch(server.url, { method: "DELETE", headers: legHeaders(server, leg), signal, redirect: "manual" }).then((response) => response.body?.cancel(), () => undefined);
}

function legHeaders(server: UpstreamServer, leg: UpstreamLeg | null): Record<string, string> {
  const headers: Record<string, string> = { ...server.headers, "content-type": "application/json", accept: "application/json, text/event-stream" };
  if (leg?.sessionId) headers["mcp-session-id"] = leg.sessionId;
  if (leg?.protocolVersion) headers["mcp-protocol-version"] = leg.protocolVersion;
  return headers;
}

async function* none(): AsyncGenerator<JsonRpcMessage> {}

async function* closing(messages: AsyncIterable<JsonRpcMessage>, release: () => void, why: (error: unknown) => Error): AsyncGenerator<JsonRpcMessage> {
  try {
    yield* messages;
  } catch (error) {
    throw why(error);
  } finally {
    release();
  }
}

/** How long the rest of an answer no longer needed is read before its connection is dropped. */
const DRAIN_MS = 2_000;

/** Reads what is left of a body to its end, for at most `DRAIN_MS`, then drops it. Never throws. */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  const deadline = Date.now() + DRAIN_MS;
  const timer = setTimeout(() => void reader.cancel().catch(() => undefined), DRAIN_MS);
  try {
    while (Date.now() < deadline) if ((await reader.read()).done) return;
  } catch {
    // The body failed or was dropped: nothing left to read.
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => undefined);
  }
}

class MessageTooLarge extends Error {}

/** A JSON answer: one message (or the messages of a batch), read within the cap. */
async function* jsonMessages(body: ReadableStream<Uint8Array>, maxBytes: number, label: string): AsyncGenerator<JsonRpcMessage> {
  const text = await boundedText(body, maxBytes, label);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`MCP server ${label} answered a body that is not JSON.`);
  }
  for (const item of Array.isArray(value) ? value : [value]) {
    const message = asMessage(item);
    if (message) yield message;
  }
}

/** A stream of events: each event's message as it completes, each within the cap. */
async function* streamMessages(body: ReadableStream<Uint8Array>, maxBytes: number, label: string): AsyncGenerator<JsonRpcMessage> {
  const parser = createSseParser();
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let pending = 0;
  let ended = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const events = done ? parser.flush() : parser.push(decoder.decode(value, { stream: true }));
      pending = done ? 0 : pending + (value?.byteLength ?? 0);
      for (const event of events) {
        pending = 0;
        if (event.data.length > maxBytes) throw new MessageTooLarge(`MCP server ${label} sent a message larger than ${maxBytes} bytes.`);
        if (event.event !== null && event.event !== "message") continue;
        let parsed: unknown;
        try {
          parsed = JSON.parse(event.data);
        } catch {
          continue;
        }
        const message = asMessage(parsed);
        if (message) yield message;
      }
      if (pending > maxBytes) throw new MessageTooLarge(`MCP server ${label} sent a message larger than ${maxBytes} bytes.`);
      if (done) {
        ended = true;
        return;
      }
    }
  } catch (error) {
    ended = true;
    reader.cancel().catch(() => undefined);
    throw error;
  } finally {
    // Left early (the answer was found): the server's stream ends on its own shortly.
    if (!ended) void drain(reader);
  }
}

async function boundedText(body: ReadableStream<Uint8Array>, maxBytes: number, label: string): Promise<string> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) throw new MessageTooLarge(`MCP server ${label} sent a message larger than ${maxBytes} bytes.`);
      chunks.push(value);
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}
