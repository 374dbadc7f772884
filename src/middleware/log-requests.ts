import type { Context, MiddlewareHandler } from "hono";
import type { ZodError } from "zod";
import type { GatewayEnv } from "../app-env.ts";
import { HTTPException } from "hono/http-exception";
import { toGatewayError, validationHook } from "../app-errors.ts";
import { GatewayError } from "../errors.ts";
import type { InflightTracker } from "../lib/inflight.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import type { LogWriter } from "../logging/log-writer.ts";
import { Exchange, type EndedWith } from "../pipeline/exchange.ts";

const TRACE_HEADER = "x-gateway-trace-id";
const NO_METADATA: Readonly<Record<string, string>> = Object.freeze({});

export interface RequestLogOptions {
  writer: LogWriter;
  inflight: InflightTracker;
  route: string;
  /** The operation the route serves: how the log reads its answer, its telemetry name. */
  operation?: Pick<OperationDescriptor, "answers" | "genAiOperation">;
  /** `GATEWAY_MAX_LOGGED_BODY_BYTES`: the most the log keeps of each body. */
  maxBodyBytes: number;
}

/** A request's exchange, opened; `settle` queues its record once the answer is known (a stream's when it ends). */
export interface OpenedExchange {
  settle(status: number, error: Error | undefined): void;
}

/**
 * Opens the exchange of each request of one operation: sets `exchange` for the route, echoes
 * the trace and log ids, and counts the request in flight until its record is queued. The
 * caller's trace, spans and metadata reach the facts through `logHeadersHook`, once the route's
 * headers are read.
 */
export function exchangeOpener(options: RequestLogOptions): (c: Context<GatewayEnv>) => OpenedExchange {
  const { writer, inflight, route, maxBodyBytes } = options;
  const enqueue = writer.enqueue.bind(writer);
  const operation = { format: options.operation?.answers.name ?? "chat", genAiOperation: options.operation?.genAiOperation ?? null };
  return (c) => {
    const done = inflight.begin();
    const auth = c.get("auth");
    // A W3C `traceparent` puts the request in the caller's trace unless `x-gateway-trace-id`
    // names another (read with the route's headers, below); an invalid one is ignored.
    const traceParent = parseTraceParent(c.req.header("traceparent"));
    const exchange = new Exchange(
      {
        organisationId: auth.organisationId,
        workspaceId: auth.workspaceId,
        apiKeyId: auth.keyId,
        route,
        method: c.req.method,
        path: c.req.path,
        traceId: traceParent?.traceId ?? null,
        spanId: null,
        parentSpanId: traceParent?.parentSpanId ?? null,
        spanName: null,
        metadata: NO_METADATA,
      },
      operation,
      enqueue,
      done,
      maxBodyBytes,
    );
    c.set("exchange", exchange);
    c.header(TRACE_HEADER, exchange.traceId);
    c.header("x-gateway-log-id", exchange.id);
    return {
      settle(status, error) {
        const later = !error && exchange.endsLater;
        exchange.settle(endedWith(status, error));
        if (later && c.env?.answerEnd) {
          // A stream's answer ends when its record is queued: the entry point hears of it then.
          const answerEnd = c.env.answerEnd;
          answerEnd.later = true;
          exchange.whenSettled(() => answerEnd.ended());
        }
      },
    };
  };
}

/**
 * Logs every request of an inference route, success or failure: the exchange opened before
 * the route's validators, settled with how the app answered (errors after this point, from
 * validation or the route, are answered by the app and land in `c.error`).
 */
export function logRequests(options: RequestLogOptions): MiddlewareHandler<GatewayEnv> {
  const open = exchangeOpener(options);
  return async function logRequest(c, next) {
    const opened = open(c);
    await next();
    opened.settle(c.res.status, c.error);
  };
}

/** The headers a logged route's document lists for the log: trace, spans and metadata. */
export interface LogHeaders {
  "x-gateway-trace-id"?: string;
  "x-gateway-span-id"?: string;
  "x-gateway-parent-span-id"?: string;
  "x-gateway-span-name"?: string;
  "x-gateway-metadata"?: string;
}

type ValidationResult<T> = { target: string } & ({ success: true; data: T } | { success: false; error: ZodError });

/**
 * Validation hook of the logged routes: the app's `validationHook`, and when the headers pass,
 * the request's facts take the caller's trace, spans and metadata from them. Headers are
 * validated before the body, so a request refused for its body is still logged under the
 * caller's trace. An empty header counts as absent.
 */
export function logHeadersHook<T>(result: ValidationResult<T>, c: Context<GatewayEnv>): undefined {
  validationHook(result);
  if (!result.success || result.target !== "header") return undefined;
  // The header target's data is the route's validated header object, which lists these names.
  const headers = result.data as LogHeaders;
  const exchange = c.get("exchange");
  const facts = exchange.facts;
  const gatewayTraceId = headers[TRACE_HEADER] || null;
  // `x-gateway-trace-id` (with its parent span header) wins over a `traceparent`, whose trace and
  // parent span otherwise stand; with neither, the parent span header is kept as sent.
  const traceId = gatewayTraceId ?? facts.traceId;
  const parentSpanId = gatewayTraceId || facts.traceId === null ? headers["x-gateway-parent-span-id"] || null : facts.parentSpanId;
  exchange.facts = {
    ...facts,
    traceId,
    parentSpanId,
    spanId: headers["x-gateway-span-id"] || null,
    spanName: headers["x-gateway-span-name"] || null,
    metadata: parseMetadataHeader(headers["x-gateway-metadata"]),
  };
  if (gatewayTraceId) c.header(TRACE_HEADER, exchange.traceId);
  return undefined;
}

/** How the app answered, for a request whose route handed over no ending (it was refused). */
function endedWith(status: number, error: Error | undefined): EndedWith {
  if (!error) return { status, error: null };
  // A body that is not JSON (Hono's HTTPException) is logged as the client was answered, not as the gateway's failure.
  const known = error instanceof GatewayError ? error : error instanceof HTTPException ? toGatewayError(error) : null;
  if (known) return { status: known.status, error: { code: known.upstream?.code ?? known.code, message: known.message }, errorBody: known.toBody() };
  return { status: status >= 400 ? status : 500, error: { code: "internal_error", message: "Internal error" } };
}

/**
 * The W3C Trace Context `traceparent` header (https://www.w3.org/TR/trace-context/#traceparent-header):
 * `version-traceid-parentid-flags`, lowercase hex. A header that does not parse is ignored, as the
 * spec asks of a receiver, never refused.
 */
export interface TraceParent {
  /** 32 lowercase hex digits, not all zero. */
  traceId: string;
  /** The caller's span: 16 lowercase hex digits, not all zero. */
  parentSpanId: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-.*)?$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);

/** The trace and parent span of a `traceparent` value; null when it is absent or invalid. Never throws. */
export function parseTraceParent(value: string | undefined): TraceParent | null {
  if (!value) return null;
  const match = TRACEPARENT.exec(value.trim());
  if (!match) return null;
  const [, version, traceId, parentSpanId, rest] = match as unknown as [string, string, string, string, string | undefined];
  // Version ff is forbidden; version 00 has exactly four fields, later versions may append more.
  if (version === "ff" || (version === "00" && rest !== undefined)) return null;
  if (traceId === ZERO_TRACE || parentSpanId === ZERO_SPAN) return null;
  return { traceId, parentSpanId };
}

const METADATA_HEADER = "x-gateway-metadata";
const MAX_KEYS = 64;
const MAX_KEY_LENGTH = 128;
const MAX_VALUE_LENGTH = 1024;

/** Parses `x-gateway-metadata`: a JSON object of string values, within size limits. Throws a 400 GatewayError otherwise. */
export function parseMetadataHeader(raw: string | undefined): Record<string, string> {
  if (raw === undefined || raw.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalid("must be a JSON object of string values");
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw invalid("must be a JSON object of string values");
  const entries = Object.entries(parsed);
  if (entries.length > MAX_KEYS) throw invalid(`may hold at most ${MAX_KEYS} keys`);
  for (const [key, value] of entries) {
    if (typeof value !== "string") throw invalid(`value of "${key.slice(0, MAX_KEY_LENGTH)}" must be a string`);
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) throw invalid(`keys must be 1 to ${MAX_KEY_LENGTH} characters`);
    if (value.length > MAX_VALUE_LENGTH) throw invalid(`values must be at most ${MAX_VALUE_LENGTH} characters`);
  }
  // Own properties whatever the key: assigning `__proto__` would drop it silently.
  return Object.fromEntries(entries) as Record<string, string>;
}

function invalid(problem: string): GatewayError {
  return new GatewayError("invalid_request", `${METADATA_HEADER} ${problem}.`, { param: METADATA_HEADER });
}
