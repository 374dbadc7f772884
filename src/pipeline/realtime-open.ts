/**
 * Opening a realtime session: the request's config and target resolved as for every operation
 * (the query's `model` is the model), the upstream's WebSocket opened with the provider's
 * credentials, then the client's connection upgraded. Every refusal happens before the upgrade.
 * https://platform.openai.com/docs/guides/realtime-websocket
 */
import { fail, GatewayError, ok, type Result } from "../errors.ts";
import type { AnswerEnding, Outcome } from "../logging/outcome.ts";
import { emptyOutcome } from "../logging/outcome.ts";
import type { ProxyDeps } from "./proxy-operation.ts";
import { CONFIG_HEADER, loadRequestConfig, requestTimeout } from "./request-config.ts";
import { REALTIME_PROTOCOL, offeredProtocols, RealtimeSession, type RealtimeRuntime, type RealtimeSessions } from "./realtime-session.ts";
import { resolveCandidates, type TargetHeaders } from "./target-resolution.ts";
import type { ConnectPin } from "../net/pinned-fetch.ts";
import type { UpstreamTls } from "../net/upstream-tls.ts";
import { credentialScrubber } from "../net/sent-credentials.ts";

export const REALTIME_OPERATION_ID = "createRealtimeSession";

export interface RealtimeOpenInput {
  model: string;
  headers: TargetHeaders & { timeout?: number; config?: string };
  /** The client's `OpenAI-Beta`, passed upstream as it is. */
  beta: string | undefined;
  /** The client's `Sec-WebSocket-Protocol`. */
  protocols: string | undefined;
  workspaceId: string;
  /** The request's metadata: config conditions route on it. */
  metadata: Readonly<Record<string, string>>;
  /** The ids the 101 answer carries. */
  logId: string;
  traceId: string;
}

/** An opened session, what opening it did, and its ending (when the session closes). */
export interface RealtimeOpened {
  session: RealtimeSession;
  outcome: Outcome;
  ended: Promise<AnswerEnding>;
}

export interface RealtimeOpenDeps extends Pick<ProxyDeps, "checkCustomHost" | "defaultTimeoutMs" | "store" | "controlPlane" | "secrets" | "fetch"> {
  runtime: RealtimeRuntime;
  sessions: RealtimeSessions;
  /** `UPSTREAM_MTLS_*`, presented by the upstream socket. */
  upstreamTls: UpstreamTls | null;
  /** Where the upstream socket may connect (the SSRF guard's checked addresses), as for `fetch`. */
  addressesForConnect: ConnectPin["addressesForConnect"];
}

/**
 * Resolves the target, opens the upstream's socket and upgrades the client's connection; the
 * session then runs (and logs itself) until one side closes. Expected failures are results,
 * answered by the route as JSON errors before any upgrade.
 */
export async function openRealtimeSession(input: RealtimeOpenInput, deps: RealtimeOpenDeps): Promise<Result<RealtimeOpened, { error: GatewayError; outcome: Outcome }>> {
  let outcome: Outcome = { ...emptyOutcome("json", null), stream: true, model: input.model };
  const refuse = (error: GatewayError) => fail({ error, outcome });

  const offered = offeredProtocols(input.protocols);
  if (offered.length > 0 && !offered.includes(REALTIME_PROTOCOL)) {
    return refuse(new GatewayError("invalid_request", `Offer the subprotocol "${REALTIME_PROTOCOL}" (with gateway-key.<key> if the key is not in a header).`, { param: "Sec-WebSocket-Protocol" }));
  }
  const config = await loadRequestConfig(input.headers.config, input.workspaceId, deps);
  if (!config.ok) return refuse(config.error);
  const settings = config.value?.settings ?? null;
  outcome = { ...outcome, configId: settings?.storedConfig?.id ?? null, configVersion: settings?.storedConfig?.version ?? null };
  if ((settings?.inputGuardrails?.length ?? 0) > 0 || (settings?.outputGuardrails?.length ?? 0) > 0) {
    return refuse(new GatewayError("invalid_request", `The config attaches guardrails, which ${REALTIME_OPERATION_ID} cannot run: remove them from the config for this operation.`, { param: CONFIG_HEADER }));
  }
  const facts = { metadata: input.metadata, params: { model: input.model }, route: REALTIME_OPERATION_ID };
  const candidates = await resolveCandidates({ model: input.model, headers: input.headers, config: config.value, workspaceId: input.workspaceId, facts }, deps);
  if (!candidates.ok) return refuse(candidates.error);
  // A session is one connection: it goes to the plan's first target (no retry or fallback).
  const { target, settings: targetSettings } = candidates.value[0]!;
  const { provider } = target;
  outcome = { ...outcome, provider: provider.id, model: target.model, virtualKeyId: target.virtualKeyId };
  if (!provider.openaiFormat && !provider.operations[REALTIME_OPERATION_ID]) {
    return refuse(new GatewayError("invalid_request", `${provider.name} does not serve ${REALTIME_OPERATION_ID} through the gateway.`, { param: "x-gateway-provider" }));
  }

  const httpUrl = new URL(`${target.baseUrl.replace(/\/+$/, "")}/realtime`);
  httpUrl.searchParams.set("model", target.model ?? input.model);
  const authorized = await provider.authorize(
    { method: "GET", url: httpUrl.href, headers: input.beta === undefined ? {} : { "openai-beta": input.beta }, body: null },
    target.credentials,
    { fetch: deps.fetch },
  );
  if (authorized instanceof GatewayError) return refuse(authorized);
  const upstreamUrl = new URL(authorized.url);
  upstreamUrl.protocol = upstreamUrl.protocol === "http:" ? "ws:" : "wss:";
  const addresses = await deps.addressesForConnect(upstreamUrl.hostname);
  if (!addresses.ok) return refuse(addresses.error);

  let resolveEnded!: (ending: AnswerEnding) => void;
  const ended = new Promise<AnswerEnding>((resolve) => (resolveEnded = resolve));
  const session = new RealtimeSession(outcome.model, resolveEnded, deps.sessions, offered.length > 0 ? REALTIME_PROTOCOL : null, {
    "x-gateway-trace-id": input.traceId,
    "x-gateway-log-id": input.logId,
    "x-gateway-provider": provider.id,
  });
  const timeoutMs = requestTimeout(input.headers.timeout, targetSettings.requestTimeout ?? deps.defaultTimeoutMs);
  // A refusal may echo the credentials the upgrade request carried.
  const scrub = credentialScrubber({ url: upstreamUrl.href, headers: authorized.headers });
  const upstream = await deps.runtime.connect(
    {
      url: upstreamUrl.href,
      addresses: addresses.value,
      headers: authorized.headers,
      timeoutMs,
      providerName: provider.name,
      refused: (status, text) => provider.error(status, scrub(text), {}),
      tls: deps.upstreamTls,
    },
    session.upstreamListener,
  );
  if (!upstream.ok) {
    session.abandon();
    return refuse(upstream.error);
  }
  session.upstreamOpened(upstream.value);
  if (session.upstreamGone) {
    session.abandon();
    return refuse(new GatewayError("upstream_unreachable", `${provider.name} closed the realtime session as it opened.`));
  }
  if (!deps.runtime.upgrade(session)) {
    session.abandon();
    return refuse(new GatewayError("invalid_request", "The connection could not be upgraded to a WebSocket."));
  }
  // The session's ending comes when it closes.
  return ok({ session, outcome, ended });
}
