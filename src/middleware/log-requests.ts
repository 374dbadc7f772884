import type { Context, MiddlewareHandler } from "hono";
import type { ZodError } from "zod";
import type { GatewayEnv } from "../app-env.ts";
import { HTTPException } from "hono/http-exception";
import { toGatewayError, validationHook } from "../app-errors.ts";
import { GatewayError } from "../errors.ts";
import type { InflightTracker } from "../core/inflight.ts";
import type { OperationDescriptor } from "../core/operation.ts";
import type { LogWriter } from "../logging/log-writer.ts";
import { RequestLog } from "../logging/request-log.ts";
import { parseMetadataHeader } from "../logging/metadata-header.ts";
import { parseTraceParent } from "../logging/traceparent.ts";

const TRACE_HEADER = "x-gateway-trace-id";

/**
 * Logs every request of an inference route, success or failure. Sets `requestLog` for the
 * proxy, echoes the trace and log ids, and counts the request in flight until its record is
 * queued (a stream queues it when it ends). The caller's trace, spans and metadata reach the
 * log through `logHeadersHook`, once the route's validator has passed its headers.
 */
export function logRequests(options: {
  writer: LogWriter;
  inflight: InflightTracker;
  route: string;
  /** The operation the route serves: how the log reads its answer, its telemetry name. */
  operation?: Pick<OperationDescriptor, "format" | "genAiOperation">;
  /** `GATEWAY_MAX_LOGGED_BODY_BYTES`: the most the log keeps of each body. */
  maxBodyBytes: number;
}): MiddlewareHandler<GatewayEnv> {
  const { writer, inflight, route, operation, maxBodyBytes } = options;
  const enqueue = writer.enqueue.bind(writer);
  return async function logRequest(c, next) {
    const done = inflight.begin();
    const auth = c.get("auth");
    // A W3C `traceparent` puts the request in the caller's trace unless `x-gateway-trace-id`
    // names another (read with the route's headers, below); an invalid one is ignored.
    const traceParent = parseTraceParent(c.req.header("traceparent"));
    const log = new RequestLog(
      {
        organisationId: auth.organisationId,
        workspaceId: auth.workspaceId,
        apiKeyId: auth.keyId,
        route,
        method: c.req.method,
        path: c.req.path,
        // Until its headers are read (and if they are refused) the request is its own trace,
        // or the one its `traceparent` names.
        traceId: traceParent?.traceId ?? null,
        spanId: null,
        parentSpanId: traceParent?.parentSpanId ?? null,
        spanName: null,
      },
      enqueue,
      done,
      maxBodyBytes,
    );
    if (operation) {
      log.format = operation.format;
      log.genAiOperation = operation.genAiOperation ?? null;
    }
    c.set("requestLog", log);
    c.header(TRACE_HEADER, log.traceId);
    c.header("x-gateway-log-id", log.id);
    // Errors after this point (validation, the route) are answered by the app and land in `c.error`.
    await next();
    if (!log.deferred || c.error) settle(log, c.res.status, c.error);
    else if (c.env?.answerEnd) {
      // A stream's answer ends when its log does: the entry point hears of it then.
      const answerEnd = c.env.answerEnd;
      answerEnd.later = true;
      if (log.isFinished) answerEnd.ended();
      else log.onFinish(() => answerEnd.ended());
    }
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
 * the request log takes the caller's trace, spans and metadata from them. Headers are validated
 * before the body, so a request refused for its body is still logged under the caller's trace.
 * An empty header counts as absent.
 */
export function logHeadersHook<T>(result: ValidationResult<T>, c: Context<GatewayEnv>): undefined {
  validationHook(result);
  if (!result.success || result.target !== "header") return undefined;
  // The header target's data is the route's validated header object, which lists these names.
  const headers = result.data as LogHeaders;
  const log = c.get("requestLog");
  const { identity } = log;
  const gatewayTraceId = headers[TRACE_HEADER] || null;
  // `x-gateway-trace-id` (with its parent span header) wins over a `traceparent`, whose trace and
  // parent span otherwise stand; with neither, the parent span header is kept as sent.
  if (gatewayTraceId) {
    identity.traceId = gatewayTraceId;
    identity.parentSpanId = headers["x-gateway-parent-span-id"] || null;
    c.header(TRACE_HEADER, log.traceId);
  } else if (identity.traceId === null) {
    identity.parentSpanId = headers["x-gateway-parent-span-id"] || null;
  }
  identity.spanId = headers["x-gateway-span-id"] || null;
  identity.spanName = headers["x-gateway-span-name"] || null;
  log.metadata = parseMetadataHeader(headers["x-gateway-metadata"]);
  return undefined;
}

function settle(log: RequestLog, status: number, error: Error | undefined): void {
  if (!error) return log.finish(status);
  // A body that is not JSON (Hono's HTTPException) is logged as the client was answered, not as the gateway's failure.
  const known = error instanceof GatewayError ? error : error instanceof HTTPException ? toGatewayError(error) : null;
  if (known) {
    log.response ??= { kind: "error", body: known.toBody() };
    return log.finish(known.status, { code: known.upstream?.code ?? known.code, message: known.message });
  }
  log.finish(status >= 400 ? status : 500, { code: "internal_error", message: "Internal error" });
}
