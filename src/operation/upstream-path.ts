import { GatewayError } from "../errors.ts";
import type { OperationDescriptor, UpstreamPath } from "./descriptor.ts";

/** What a route knows of the request that picks where it goes upstream. */
export interface RequestPath {
  method: string;
  url: URL;
  /** The route's path parameters, decoded. */
  params: Readonly<Record<string, string>>;
}

/** Where one request goes: its method, and its path under the provider's base URL. */
export interface UpstreamRoute {
  method: string;
  path: string;
}

/**
 * Where one request of an operation goes, by the operation's rules: its method (the client's for
 * `*`) and path (`UpstreamPath`). A path that could leave the base URL is refused: throws a 400
 * `GatewayError`.
 */
export function resolveUpstream(operation: Pick<OperationDescriptor, "method" | "upstreamPath">, request: RequestPath): UpstreamRoute {
  return { method: operation.method === "*" ? request.method : operation.method, path: resolvePath(operation.upstreamPath, request) };
}

/** True when every request of the operation goes to the same method and path. */
export function isFixedUpstream(operation: Pick<OperationDescriptor, "method" | "upstreamPath">): boolean {
  return "fixed" in operation.upstreamPath && operation.method !== "*";
}

/** True for a template without parameters: a request without a query goes to its path as it is. */
export function isPlainTemplate(operation: Pick<OperationDescriptor, "method" | "upstreamPath">): boolean {
  return "template" in operation.upstreamPath && !operation.upstreamPath.template.includes("{") && operation.method !== "*";
}

/**
 * Where every request of an operation with a fixed method and path goes. For one resolved per
 * request the route passes the resolved route, so meeting one here is a bug: throws.
 */
export function fixedUpstream(operation: Pick<OperationDescriptor, "id" | "method" | "upstreamPath">): UpstreamRoute {
  if (isFixedUpstream(operation) && "fixed" in operation.upstreamPath) return { method: operation.method, path: operation.upstreamPath.fixed };
  if (isPlainTemplate(operation) && "template" in operation.upstreamPath) return { method: operation.method, path: operation.upstreamPath.template };
  throw new Error(`${operation.id} resolves its upstream method or path per request: its route must pass them.`);
}

function resolvePath(rule: UpstreamPath, request: RequestPath): string {
  if ("fixed" in rule) return rule.fixed;
  if ("afterV1" in rule) return pathAfterV1(request.url);
  return fillTemplate(rule.template, request.params) + request.url.search;
}

/**
 * The request's path after `/v1`, with its query. Dot segments (also percent-encoded), encoded
 * slashes and backslashes and empty segments are refused (400), so the path stays under the
 * provider's base URL.
 */
export function pathAfterV1(url: URL): string {
  const rest = url.pathname.slice("/v1".length);
  if (/(^|\/)(\.|%2e){1,2}(\/|$)/i.test(rest) || /\\|%5c|%2f/i.test(rest) || rest.includes("//")) {
    throw new GatewayError("invalid_request", "The path may not hold dot segments, backslashes, encoded slashes or empty segments.", { param: "path" });
  }
  return `${rest}${url.search}`;
}

/** `{name}` placeholders of `template` filled with the parameters, each checked and encoded as one segment. */
function fillTemplate(template: string, params: Readonly<Record<string, string>>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`The upstream path ${template} names ${name}, which the route does not have.`);
    if (value === "" || value === "." || value === ".." || /[/\\]/.test(value)) {
      throw new GatewayError("invalid_request", `The path parameter ${name} may not be empty, a dot segment or hold a slash or backslash.`, { param: name });
    }
    // Encoded as one segment; the characters a segment may hold as they are (`ft:model:org::id`) stay so.
    return encodeURIComponent(value).replace(/%(3A|40|21|24|26|27|28|29|2A|2B|2C|3B|3D)/g, (escape) => decodeURIComponent(escape));
  });
}
