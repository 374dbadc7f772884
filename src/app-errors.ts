import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ZodError } from "zod";
import type { GatewayEnv } from "./app-env.ts";
import { GatewayError } from "./errors.ts";
import { isStoreUnavailable, storeOutage } from "./store/store-unavailable.ts";

/** The one place (with the validation hook) that turns errors into the JSON envelope. */
export const handleError: ErrorHandler<GatewayEnv> = (error, c) => {
  // A body read that fails because the client went away or broke off its body is the client's
  // doing: answered (if anyone still listens) and never reported as the gateway's failure.
  if (!(error instanceof GatewayError) && (c.req.raw.signal.aborted || error.name === "AbortError")) {
    return respond(c, new GatewayError("client_closed", "The client closed the connection before its request was read."));
  }
  const gatewayError = toGatewayError(error);
  if (isStoreUnavailable(error)) {
    storeOutage.failed(error);
  } else if (gatewayError.status >= 500 && !(error instanceof GatewayError)) {
    // Only the error's name and message: request data may hold secrets.
    console.error(`[gateway] unexpected error on ${c.req.method} ${c.req.path}: ${error.name}: ${error.message}`);
  }
  return respond(c, gatewayError);
};

/**
 * Reports a failure that came after the answer's status went out (a download cut short), as
 * `handleError` reports one before it: a store outage once per episode, anything else by its
 * name and message only.
 */
export function reportFailureAfterAnswer(error: unknown, method: string, path: string): void {
  const failure = error instanceof Error ? error : new Error(String(error));
  if (isStoreUnavailable(failure)) storeOutage.failed(failure);
  else console.error(`[gateway] unexpected error on ${method} ${path} after its answer began: ${failure.name}: ${failure.message}`);
}

export const handleNotFound: NotFoundHandler<GatewayEnv> = (c) =>
  respond(c, new GatewayError("not_found", `No route ${c.req.method} ${c.req.path}.`));

function respond(c: Context<GatewayEnv>, error: GatewayError): Response {
  for (const [name, value] of Object.entries(error.headers ?? {})) c.header(name, value);
  return c.json(error.toBody(), error.status as ContentfulStatusCode);
}

/** The GatewayError an error is answered with: Hono's HTTPExceptions (an unreadable body) by their status, anything unknown as `internal_error`. */
export function toGatewayError(error: Error): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error instanceof HTTPException) {
    if (error.status === 413) return new GatewayError("body_too_large", "The request body is too large.");
    if (error.status === 400) return new GatewayError("invalid_json", "The request body is not valid JSON.");
    return new GatewayError(error.status === 404 ? "not_found" : "invalid_request", error.message || "Bad request.", { status: error.status });
  }
  if (isStoreUnavailable(error)) {
    return new GatewayError("service_unavailable", "The gateway's store is unavailable; try again shortly.", { headers: { "retry-after": "5" } });
  }
  return new GatewayError("internal_error", "Internal error.");
}

const WHERE: Record<string, string> = { query: "query parameter", param: "path parameter", header: "header" };

/** zod-openapi validation hook: a 400 that names the first offending field. */
export function validationHook(
  result: { success: true } | { success: false; error: ZodError; target?: string },
): void {
  if (result.success) return;
  const issue = result.error.issues[0];
  const param = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : null;
  const where = WHERE[result.target ?? ""] ?? "field";
  const message = issue
    ? param
      ? `Invalid ${where} '${param}': ${issue.message}`
      : `Invalid request: ${issue.message}`
    : "Invalid request.";
  throw new GatewayError("invalid_request", message, { param });
}
