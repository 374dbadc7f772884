import type { Context } from "hono";
import type { GatewayApp, GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { handleError } from "../app-errors.ts";
import { resolveUpstream, type OperationDescriptor } from "../operation/descriptor.ts";
import { jsonAnswers } from "../operation/answer-reader.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxyOperation } from "../pipeline/proxy-operation.ts";
import { forwardedBody, forwardedProxyInput, proxyDeps, proxyResponse, requestLogger } from "./proxy/proxy-route.ts";
import type { RequestBody } from "../operation/request-body.ts";
import { GatewayError } from "../errors.ts";
import { openApiDocument } from "../generated/openapi-document.gen.ts";
import { createChatCompletionRoute } from "../generated/routes.gen.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";
import { isJsonContentType, jsonBodyText } from "../middleware/read-body.ts";
import { nestedDeeperThan } from "../validation/json-depth.ts";

/**
 * The pass-through: any `/v1/*` request no documented route serves goes to the selected
 * provider's base URL with the same method, path (after `/v1`), query and body, and is logged
 * like the rest. It is the one route outside the document: its paths are the upstream's.
 */
export const passThroughOperation: OperationDescriptor = {
  id: "passThrough",
  method: "*",
  upstreamPath: { afterV1: true },
  body: "json-or-as-sent",
  answer: "as-sent",
  streamEndsAtEof: true,
  answers: jsonAnswers,
  overrides: jsonFieldOverrides,
};

/** The pass-through takes the gateway headers every proxied operation takes. */
const headerSchema = createChatCompletionRoute.request.headers;

/**
 * First path segments under `/v1` that belong to the gateway's own resources (keys, logs,
 * configs…): an unknown path there is a 404, never a request to an upstream.
 */
const RESERVED_SEGMENTS: ReadonlySet<string> = new Set(
  Object.entries(openApiDocument.paths)
    .filter(([path, item]) => path.startsWith("/v1/") && !Object.values(item).some((operation) => (operation.tags as readonly string[] | undefined)?.includes("Inference")))
    .map(([path]) => path.split("/")[2]!),
);

/**
 * Whether a first path segment names one of the gateway's own resources, however it is cased,
 * encoded or decorated (`Logs`, `logs.json`, `virtual-keys;x`, `logs%3Bx`): a client's slip
 * must not send a control-plane body (a virtual key's secret, say) to the provider.
 */
function isReserved(segment: string): boolean {
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // Not valid percent-encoding: judged as written.
  }
  const name = /^[a-z0-9-]*/i.exec(decoded)![0].toLowerCase();
  return RESERVED_SEGMENTS.has(name);
}

export function registerPassThrough(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  const logRequest = requestLogger(passThroughOperation.id, deps, passThroughOperation);
  app.all("/v1/*", async (c, next) => {
    const url = new URL(c.req.url);
    if (isReserved(url.pathname.split("/")[2] ?? "")) return next();
    // Called here rather than chained, so reserved paths fall through to "not found"; errors are
    // answered inside it, as the chain would, so the log sees them.
    await logRequest(c, async () => {
      try {
        c.res = proxyResponse(c, await passThrough(c, url, core));
      } catch (error) {
        if (!(error instanceof Error)) throw error;
        c.error = error;
        c.res = await handleError(error, c);
      }
    });
    return c.res;
  });
}

/** The methods upstream APIs use; others (TRACE, CONNECT…) are not sent anywhere. */
const METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]);

async function passThrough(c: Context<GatewayEnv>, url: URL, core: ReturnType<typeof proxyDeps>) {
  if (!METHODS.has(c.req.method)) {
    throw new GatewayError("method_not_allowed", `The pass-through sends ${[...METHODS].join(", ")} only.`, { headers: { allow: [...METHODS].join(", ") } });
  }
  const sent = Object.fromEntries(Object.keys(headerSchema.shape).map((name) => [name, c.req.header(name)]));
  const headers = headerSchema.safeParse(sent);
  logHeadersHook(headers.success ? { target: "header", success: true, data: headers.data } : { target: "header", success: false, error: headers.error }, c);
  if (!headers.success) throw new GatewayError("invalid_request", "Invalid header.");
  const upstream = resolveUpstream(passThroughOperation, { method: c.req.method, url, params: {} });
  const body = await requestBody(c);
  return proxyOperation(passThroughOperation, { ...forwardedProxyInput(c, headers.data), body, upstream }, core);
}

/** A JSON body is read and parsed once (the log keeps it, the model in it selects); any other passes as it arrives. */
async function requestBody(c: Context<GatewayEnv>): Promise<RequestBody> {
  const forwarded = forwardedBody(c);
  if (forwarded.kind !== "as-sent" || !isJsonContentType(forwarded.contentType)) return forwarded;
  const raw = await jsonBodyText(c);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new GatewayError("invalid_json", "The request body is not valid JSON.");
  }
  if (!value || typeof value !== "object" || Array.isArray(value) || nestedDeeperThan(value)) {
    throw new GatewayError("invalid_request", "A JSON body must be an object nested at most 128 levels deep.");
  }
  return { kind: "json", value: value as Record<string, unknown>, raw };
}
