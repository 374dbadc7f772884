import type { MiddlewareHandler } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import { GatewayError } from "../errors.ts";
import type { InflightTracker } from "../core/inflight.ts";
import type { LogWriter } from "../logging/log-writer.ts";
import { RequestLog } from "../logging/request-log.ts";
import { parseMetadataHeader } from "../logging/metadata-header.ts";

const MAX_ID_LENGTH = 128;

function traceHeader(value: string | undefined, name: string): string | null {
  if (value === undefined || value === "") return null;
  if (value.length > MAX_ID_LENGTH) {
    throw new GatewayError("invalid_request", `${name} is longer than ${MAX_ID_LENGTH} characters.`, { param: name });
  }
  return value;
}

/**
 * Logs every request of an inference route, success or failure. Sets `requestLog` for the
 * proxy, echoes the trace and log ids, and counts the request in flight until its record is
 * queued (a stream queues it when it ends).
 */
export function logRequests(options: {
  writer: LogWriter;
  inflight: InflightTracker;
  route: string;
  /** `GATEWAY_MAX_LOGGED_BODY_BYTES`: the most the log keeps of each body. */
  maxBodyBytes: number;
}): MiddlewareHandler<GatewayEnv> {
  const { writer, inflight, route, maxBodyBytes } = options;
  const enqueue = writer.enqueue.bind(writer);
  return async function logRequest(c, next) {
    const done = inflight.begin();
    const auth = c.get("auth");
    const headerTrace = c.req.header("x-gateway-trace-id");
    const log = new RequestLog(
      {
        organisationId: auth.organisationId,
        workspaceId: auth.workspaceId,
        apiKeyId: auth.keyId,
        route,
        method: c.req.method,
        path: c.req.path,
        // Without the header the request starts its own trace, named by its log id.
        traceId: headerTrace && headerTrace.length <= MAX_ID_LENGTH ? headerTrace : null,
        spanId: null,
        parentSpanId: null,
        spanName: null,
      },
      enqueue,
      done,
      maxBodyBytes,
    );
    c.set("requestLog", log);
    c.header("x-gateway-trace-id", log.traceId);
    c.header("x-gateway-log-id", log.id);
    try {
      traceHeader(headerTrace, "x-gateway-trace-id");
      log.identity.spanId = traceHeader(c.req.header("x-gateway-span-id"), "x-gateway-span-id");
      log.identity.parentSpanId = traceHeader(c.req.header("x-gateway-parent-span-id"), "x-gateway-parent-span-id");
      log.identity.spanName = traceHeader(c.req.header("x-gateway-span-name"), "x-gateway-span-name");
      log.metadata = parseMetadataHeader(c.req.header("x-gateway-metadata"));
      await next();
    } catch (error) {
      // Thrown before the route ran (bad headers): the app's error handler answers it.
      settle(log, 500, error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
    if (!log.deferred || c.error) settle(log, c.res.status, c.error);
  };
}

function settle(log: RequestLog, status: number, error: Error | undefined): void {
  if (!error) return log.finish(status);
  if (error instanceof GatewayError) {
    log.response ??= { kind: "error", body: error.toBody() };
    return log.finish(error.status, { code: error.upstream?.code ?? error.code, message: error.message });
  }
  log.finish(status >= 400 ? status : 500, { code: "internal_error", message: "Internal error" });
}
