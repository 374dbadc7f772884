/**
 * A gateway session's sessions with upstream servers: opened with the client's own `initialize`
 * params, and opened again behind the client's back when a server no longer knows its session
 * (it restarted), so the client's session outlives the server's.
 */
import { isResponse, type JsonRpcMessage, type JsonRpcResponse } from "./json-rpc.ts";
import type { GatewaySession, SessionStore, UpstreamLeg } from "./session-store.ts";
import { postMessage, type LegAnswer, type LegFailure, type LegOptions, type UpstreamServer } from "./upstream-leg.ts";

export type Sent = { ok: true; answer: LegAnswer } | { ok: false; failure: LegFailure };

/** The first response to `id` among `messages`, or null when the messages end without one. */
export async function responseTo(messages: AsyncIterable<JsonRpcMessage>, id: JsonRpcResponse["id"]): Promise<JsonRpcResponse | null> {
  for await (const message of messages) if (isResponse(message) && message.id === id) return message;
  return null;
}

/**
 * Initialises a session with `server` as the client asked (`initialize` params), then tells it
 * the client is initialised. The server's session, or why there is none. Never throws.
 */
export async function openLeg(server: UpstreamServer, initialize: Record<string, unknown>, options: LegOptions): Promise<{ ok: true; leg: UpstreamLeg; result: Record<string, unknown> } | { ok: false; message: string }> {
  const id = "gateway-initialize";
  const sent = await postMessage(server, null, { jsonrpc: "2.0", id, method: "initialize", params: initialize }, options);
  if (!sent.ok) return { ok: false, message: sent.failure.kind === "failed" ? sent.failure.message : `MCP server ${server.label} refused to initialise.` };
  let response: JsonRpcResponse | null;
  try {
    response = await responseTo(sent.answer.messages, id);
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  if (!response?.result) return { ok: false, message: `MCP server ${server.label} did not initialise: ${response?.error?.message ?? "no answer"}.` };
  const protocolVersion = typeof response.result.protocolVersion === "string" ? response.result.protocolVersion : null;
  const leg: UpstreamLeg = { sessionId: sent.answer.sessionId, protocolVersion };
  const initialized = await postMessage(server, leg, { jsonrpc: "2.0", method: "notifications/initialized" }, options);
  if (initialized.ok) initialized.answer.close();
  return { ok: true, leg, result: response.result };
}

/**
 * Posts `message` to `server` within the gateway session: over the session's leg with that
 * server, opened first when there is none (the merged server opens them as it needs them) and
 * once more when the server lost it. Legs opened are saved in `sessions`.
 */
export async function sendInSession(session: GatewaySession, server: UpstreamServer, message: JsonRpcMessage, sessions: SessionStore, options: LegOptions): Promise<Sent> {
  let leg = session.upstream[server.label] ?? null;
  if (!leg) {
    const opened = await reopen(session, server, sessions, options);
    if (!opened.ok) return opened;
    leg = opened.leg;
  }
  const sent = await postMessage(server, leg, message, options);
  if (sent.ok || sent.failure.kind !== "session-lost") return sent;
  const reopened = await reopen(session, server, sessions, options);
  if (!reopened.ok) return reopened;
  return postMessage(server, reopened.leg, message, options);
}

async function reopen(session: GatewaySession, server: UpstreamServer, sessions: SessionStore, options: LegOptions): Promise<{ ok: true; leg: UpstreamLeg } | { ok: false; failure: LegFailure }> {
  const opened = await openLeg(server, session.initialize, options);
  if (!opened.ok) return { ok: false, failure: { kind: "failed", status: null, message: opened.message } };
  session.upstream = { ...session.upstream, [server.label]: opened.leg };
  await sessions.put(session);
  return { ok: true, leg: opened.leg };
}
