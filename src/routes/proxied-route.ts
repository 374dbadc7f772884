import type { RouteConfig, RouteHandler } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { GatewayApp, GatewayEnv } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxyOperation, type ProxyInput } from "../pipeline/proxy-operation.ts";
import { forwardedProxyInput, jsonProxyInput, pipelineRoute, proxyDeps, proxyResponse, type ProxyRouteHeaders } from "./proxy/proxy-route.ts";
import { isFixedUpstream, resolveUpstream } from "../operation/upstream-path.ts";
import { isJsonContentType } from "../middleware/limit-body-size.ts";

/** Registers one operation's route on the app: what `src/routes/<operationId>.ts` exports. */
export type RegisterRoute = (app: GatewayApp, deps: GatewayDeps) => void;

export interface ProxiedRouteOptions {
  /**
   * Answers a request without the upstream when it can (the gateway's model catalogue, a
   * response the gateway kept); null, and the request is proxied.
   */
  answerFirst?(c: Context<GatewayEnv>, deps: GatewayDeps): Promise<Response | null>;
}

/**
 * The registration of a proxied operation: its generated route served as one pipeline
 * (`pipelineRoute`), logged as the operation, whose requests `proxyOperation` serves with the
 * input the descriptor asks for (`proxiedInput`).
 */
export function proxiedRoute<R extends RouteConfig>(route: R, operation: OperationDescriptor, options: ProxiedRouteOptions = {}): RegisterRoute {
  const { answerFirst } = options;
  return (app, deps) => {
    const core = proxyDeps(deps);
    const serve = async (c: Context<GatewayEnv>): Promise<Response> => {
      const first = answerFirst ? await answerFirst(c, deps) : null;
      if (first) return first;
      return proxyResponse(c, await proxyOperation(operation, await proxiedInput(c, operation), core));
    };
    // The answer is the upstream's, relayed (`proxyResponse`), not a body typed by the route.
    pipelineRoute(app, route, deps, serve as unknown as RouteHandler<R, GatewayEnv>, { operation });
  };
}

/**
 * A proxied route's request as its validators passed it, read here by what the descriptor says
 * rather than by each route's own types: every proxied route validates the gateway headers,
 * and a JSON body when its operation takes one.
 */
interface ValidatedRequest {
  valid(target: "header"): ProxyRouteHeaders;
  valid(target: "json"): Record<string, unknown>;
}

/** The gateway headers of a proxied route's request, as its validator passed them. */
export function validatedHeaders(c: Context<GatewayEnv>): ProxyRouteHeaders {
  return (c.req as unknown as ValidatedRequest).valid("header");
}

/**
 * The proxy input of one request, as the operation's descriptor says: where it goes (its path checked
 * first, so a path that would leave the base URL is refused before the body is read), and its
 * body parsed (`json`), passed as it arrives (`as-sent`, `none`), or either by its content type
 * (`json-or-as-sent`). A JSON body is the one the route's validator parsed.
 */
export async function proxiedInput(c: Context<GatewayEnv>, operation: OperationDescriptor): Promise<ProxyInput> {
  // A fixed method and path need nothing of the request (the core takes them from the descriptor).
  const upstream = isFixedUpstream(operation) ? undefined : resolveUpstream(operation, { method: c.req.method, url: new URL(c.req.url), params: c.req.param() });
  const headers = validatedHeaders(c);
  const json = operation.body === "json" || (operation.body === "json-or-as-sent" && isJsonContentType(c.req.header("content-type")));
  const input = json ? await jsonProxyInput(c, (c.req as unknown as ValidatedRequest).valid("json"), headers) : forwardedProxyInput(c, headers);
  if (upstream) input.upstream = upstream;
  return input;
}
