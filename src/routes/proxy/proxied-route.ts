import type { RouteConfig, RouteHandler } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { GatewayApp, GatewayEnv } from "../../app-env.ts";
import type { GatewayDeps } from "../../deps.ts";
import { isFixedUpstream, isPlainTemplate, resolveUpstream, type OperationDescriptor, type UpstreamPath } from "../../operation/descriptor.ts";
import { jsonAnswers, type AnswerReader } from "../../operation/answer-reader.ts";
import { proxyOperation, type Proxied, type ProxyInput } from "../../pipeline/proxy-operation.ts";
import { forwardedProxyInput, jsonProxyInput, pipelineRoute, proxyDeps, proxyResponse, type ProxyRouteHeaders } from "./proxy-route.ts";
import { isJsonContentType } from "../../middleware/read-body.ts";
import { ok } from "../../errors.ts";
import { openApiDocument } from "../../generated/openapi-document.gen.ts";

/** Registers one operation's route on the app: what `src/routes/<operationId>.ts` exports. */
export type RegisterRoute = (app: GatewayApp, deps: GatewayDeps) => void;

/**
 * What a route file says of its operation: everything but its contract, which the generated
 * route holds (id, method, path). Without `upstreamPath` the request goes to the document's path
 * under `/v1`, its parameters filled in and the client's query kept; its body is read as the
 * document's request content types say (`documentedBody`); without `answer` the answer is JSON,
 * checked before the client gets it; without `answers` the log reads it as plain JSON.
 */
export type OperationMeaning = Omit<OperationDescriptor, "id" | "method" | "upstreamPath" | "body" | "answer" | "answers"> & {
  upstreamPath?: UpstreamPath;
  answer?: OperationDescriptor["answer"];
  answers?: AnswerReader;
};

/** The descriptor of the operation a generated route serves, from what its route file says it means. */
export function proxiedOperation(route: RouteConfig, meaning: OperationMeaning): OperationDescriptor {
  if (!route.operationId) throw new Error(`The route ${route.method} ${route.path} has no operationId.`);
  return {
    ...meaning,
    id: route.operationId,
    method: route.method.toUpperCase(),
    upstreamPath: meaning.upstreamPath ?? documentedUpstreamPath(route),
    body: documentedBody(route),
    answer: meaning.answer ?? "json",
    answers: meaning.answers ?? jsonAnswers,
  };
}

/**
 * How the operation's body is read, from the content types the document lists for it: JSON
 * alone is parsed and checked (`json`); JSON beside a form or a file is read by the request's
 * own type (`json-or-as-sent`); any other body passes as it arrives (`as-sent`), as does the
 * undocumented body of a `POST` (a cancel's, usually empty); a `GET` or `DELETE` sends none.
 */
function documentedBody(route: RouteConfig): OperationDescriptor["body"] {
  const operation = (openApiDocument.paths as Record<string, Record<string, { requestBody?: { content?: object } }>>)[route.path]?.[route.method];
  const types = Object.keys(operation?.requestBody?.content ?? {});
  if (types.length === 0) return route.method === "get" || route.method === "delete" ? "none" : "as-sent";
  if (!types.includes("application/json")) return "as-sent";
  return types.length === 1 ? "json" : "json-or-as-sent";
}

/** The route's own path after `/v1`, its parameters filled in, the client's query kept. */
function documentedUpstreamPath(route: RouteConfig): UpstreamPath {
  return { template: route.path.replace(/^\/v1(?=\/)/, "") };
}

export interface ProxiedRouteOptions {
  /**
   * Answers a request without the upstream when it can (the gateway's model catalogue, a
   * response the gateway kept); null, and the request is proxied.
   */
  answerFirst?(c: Context<GatewayEnv>, deps: GatewayDeps): Promise<Response | null>;
  /**
   * The request the core serves, made from the one the route read: a translation (Anthropic
   * Messages to chat), a rendered prompt, a conversation continued. Throws a `GatewayError` to refuse.
   */
  prepare?(c: Context<GatewayEnv>, input: ProxyInput, deps: GatewayDeps): Promise<ProxyInput>;
  /** The answer the client gets, made from the core's (a response kept for a provider that keeps none). */
  settle?(c: Context<GatewayEnv>, answer: Proxied, input: ProxyInput, deps: GatewayDeps): Proxied;
}

/**
 * The one registration of a proxied operation: its generated route served as one pipeline
 * (`pipelineRoute`), logged as the operation, whose requests `proxyOperation` serves with the
 * input the descriptor asks for (`proxiedInput`), prepared and settled as the options say.
 */
export function proxiedRoute<R extends RouteConfig>(route: R, operation: OperationDescriptor, options: ProxiedRouteOptions = {}): RegisterRoute {
  const { answerFirst, prepare, settle } = options;
  return (app, deps) => {
    const core = proxyDeps(deps);
    const serve = async (c: Context<GatewayEnv>): Promise<Response> => {
      const first = answerFirst ? await answerFirst(c, deps) : null;
      if (first) return first;
      const read = await proxiedInput(c, operation);
      const input = prepare ? await prepare(c, read, deps) : read;
      const result = await proxyOperation(operation, input, core);
      return proxyResponse(c, settle && result.ok ? ok(settle(c, result.value, input, deps)) : result);
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

/** A part of a proxied route's request (its path parameters, query) as its validator passed them. */
export function validatedPart<T>(c: Context<GatewayEnv>, target: "param" | "query" | "json"): T {
  return (c.req as unknown as { valid(target: string): T }).valid(target);
}

/**
 * The proxy input of one request, as the operation's descriptor says: where it goes (its path checked
 * first, so a path that would leave the base URL is refused before the body is read), and its
 * body parsed (`json`), passed as it arrives (`as-sent`, `none`), or either by its content type
 * (`json-or-as-sent`). A JSON body is the one the route's validator parsed.
 */
export async function proxiedInput(c: Context<GatewayEnv>, operation: OperationDescriptor): Promise<ProxyInput> {
  // A fixed method and path need nothing of the request (the core takes them from the descriptor).
  const upstream = isFixedUpstream(operation) || (isPlainTemplate(operation) && !c.req.url.includes("?")) ? undefined : resolveUpstream(operation, { method: c.req.method, url: new URL(c.req.url), params: c.req.param() });
  const headers = validatedHeaders(c);
  const json = operation.body === "json" || (operation.body === "json-or-as-sent" && isJsonContentType(c.req.header("content-type")));
  const input = json ? await jsonProxyInput(c, (c.req as unknown as ValidatedRequest).valid("json"), headers) : forwardedProxyInput(c, headers);
  if (upstream) input.upstream = upstream;
  return input;
}
