import type { RouteConfig } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { z } from "zod";
import type { GatewayEnv } from "../../app-env.ts";
import { guardCheckOf, type GuardCheck } from "../../middleware/guards.ts";
import { jsonBodyText } from "../../middleware/read-body.ts";
import { parameterChecks } from "../../generated/request-checks.gen.ts";
import type { ParameterChecks } from "../../validation/check-runtime.ts";

/** What a route's validators tell its hook: the parse result and which part of the request it was. */
export type ValidationHook = (result: { target: string } & ({ success: true; data: unknown } | { success: false; error: z.ZodError }), c: Context<GatewayEnv>) => unknown;

/**
 * Reads and checks a request as the route's generated validators would, in their order (the
 * route's guards, path parameters, query, headers, media type, JSON body), and adds what they
 * pass to the request (`c.req.valid`). Throws what they throw.
 */
export type RequestReader = (c: Context<GatewayEnv>) => Promise<void>;

const JSON_BODY_TYPE = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;
const JSON_ESSENCE = /^application\/([\w.-]+\+)?json$/i;

/**
 * Compiles a route's request checks once: the same checks as its generated zod validators,
 * without a middleware hop per part. Path parameters, query and headers are read by the checks
 * generated from the document (`parameterChecks`), and the JSON body by its generated check
 * (inside its zod schema, `compiledBody`); zod runs on a part only when its check refuses it, to
 * decide and word the refusal. Undefined for a route whose request has a part read otherwise (a
 * form, an optional body, a middleware that is not a guard): it keeps its generated validators.
 */
export function compileRequestReader(route: RouteConfig, hook: ValidationHook): RequestReader | undefined {
  const guards = guardChecks(route.middleware);
  if (!guards) return undefined;
  const request = route.request ?? {};
  const params = request.params as z.ZodType | undefined;
  const query = request.query as z.ZodType | undefined;
  const headers = request.headers as z.ZodType | undefined;
  if (request.cookies) return undefined;
  const body = jsonBodySchema(request.body);
  if (body === undefined) return undefined;
  const compiled: ParameterChecks = (route.operationId ? parameterChecks[route.operationId] : undefined) ?? {};
  const headerKeys = headers ? caseMap(headers) : null;

  const accept = (target: string, data: Record<string, unknown>, c: Context<GatewayEnv>): void => {
    hook({ target, success: true, data }, c);
    c.req.addValidatedData(target as "json", data);
  };
  const checked = (target: string, schema: z.ZodType, value: unknown, c: Context<GatewayEnv>): void => {
    const result = schema.safeParse(value);
    hook(result.success ? { target, success: true, data: result.data } : { target, success: false, error: result.error }, c);
    if (result.success) c.req.addValidatedData(target as "json", result.data as object);
  };

  return async (c) => {
    for (const guard of guards) guard(c);
    if (params) {
      const sent = c.req.param() as Record<string, string>;
      const read = compiled.param?.(sent);
      if (read) accept("param", read, c);
      else checked("param", params, sent, c);
    }
    if (query) {
      const sent = queryObject(c);
      const read = compiled.query?.(sent);
      if (read) accept("query", read, c);
      else checked("query", query, sent, c);
    }
    if (headers && headerKeys) {
      const read = compiled.header?.(c.req.raw.headers);
      if (read) accept("header", read, c);
      else checked("header", headers, headerObject(c, headerKeys), c);
    }
    if (body === null) return;
    const contentType = c.req.header("content-type");
    if (contentType ? !JSON_BODY_TYPE.test(contentType) : (await c.req.arrayBuffer()).byteLength > 0) {
      throw new HTTPException(415, { message: "Unsupported Media Type" });
    }
    checked("json", body, await jsonValue(c, contentType), c);
  };
}

/** The checks of a route's middleware, when every one is a guard; undefined otherwise. */
function guardChecks(middleware: RouteConfig["middleware"]): GuardCheck[] | undefined {
  const list = (middleware === undefined ? [] : Array.isArray(middleware) ? middleware : [middleware]) as MiddlewareHandler<GatewayEnv>[];
  const checks: GuardCheck[] = [];
  for (const each of list) {
    const check = guardCheckOf(each);
    if (!check) return undefined;
    checks.push(check);
  }
  return checks;
}

/** The schema of a required body whose only media type is JSON; null for no body; undefined for any other body. */
function jsonBodySchema(body: unknown): z.ZodType | null | undefined {
  if (body === undefined) return null;
  const { content, required } = body as { content?: Record<string, { schema?: z.ZodType }>; required?: boolean };
  const types = Object.keys(content ?? {});
  if (required !== true || types.length !== 1 || types[0] !== "application/json") return undefined;
  return content!["application/json"]!.schema;
}

/** A JSON body as the route's validator reads it: parsed when its media type is JSON, else an empty object. */
async function jsonValue(c: Context<GatewayEnv>, contentType: string | undefined): Promise<unknown> {
  const essence = contentType ? contentType.split(";")[0]!.trim().toLowerCase() : "";
  if (!JSON_ESSENCE.test(essence)) return {};
  const text = await jsonBodyText(c);
  try {
    return JSON.parse(text);
  } catch {
    throw new HTTPException(400, { message: "Malformed JSON in request body" });
  }
}

function queryObject(c: Context<GatewayEnv>): Record<string, string | string[]> {
  return Object.fromEntries(Object.entries(c.req.queries()).map(([key, values]) => (values.length === 1 ? [key, values[0]!] : [key, values])));
}

/** The schema's header names by their lower case, as the validator maps the request's headers onto them. */
function caseMap(schema: z.ZodType): Record<string, string> {
  const shape = (schema as unknown as { shape: Record<string, unknown> }).shape;
  return Object.fromEntries(Object.keys(shape).map((key) => [key.toLowerCase(), key]));
}

function headerObject(c: Context<GatewayEnv>, keys: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(c.req.header()).map(([name, value]) => [keys[name] ?? name, value]));
}
