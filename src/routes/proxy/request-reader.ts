import type { RouteConfig } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { z } from "zod";
import type { GatewayEnv } from "../../app-env.ts";
import { guardCheckOf, type GuardCheck } from "../../middleware/guards.ts";
import { compileHeaderReader } from "./header-reader.ts";
import { jsonBodyText } from "../../middleware/json-body-text.ts";

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
 * without a middleware hop per part, and with the gateway headers read by a compiled reader
 * (`header-reader.ts`) and the JSON body by its compiled check (zod only for the errors).
 * Undefined for a route whose request has a part read otherwise (a form, an optional body, a
 * middleware that is not a guard): it keeps its generated validators.
 */
export function compileRequestReader(route: RouteConfig, hook: ValidationHook): RequestReader | undefined {
  const guards = guardChecks(route.middleware);
  if (!guards) return undefined;
  const request = route.request ?? {};
  const params = request.params as z.ZodType | undefined;
  const query = request.query as z.ZodType | undefined;
  const headers = request.headers as z.ZodType | undefined;
  if (request.cookies) return undefined;
  const headerReader = headers ? compileHeaderReader(headers) : undefined;
  if (headers && !headerReader) return undefined;
  const body = jsonBodySchema(request.body);
  if (body === undefined) return undefined;
  const headerKeys = headers ? caseMap(headers) : null;

  const checked = (target: string, schema: z.ZodType, value: unknown, c: Context<GatewayEnv>): void => {
    const result = schema.safeParse(value);
    hook(result.success ? { target, success: true, data: result.data } : { target, success: false, error: result.error }, c);
    if (result.success) c.req.addValidatedData(target as "json", result.data as object);
  };

  return async (c) => {
    for (const guard of guards) guard(c);
    if (params) checked("param", params, c.req.param(), c);
    if (query) checked("query", query, queryObject(c), c);
    if (headers && headerReader && headerKeys) {
      const read = headerReader(c.req.raw.headers);
      if (read === null) checked("header", headers, headerObject(c, headerKeys), c);
      else {
        hook({ target: "header", success: true, data: read }, c);
        c.req.addValidatedData("header", read);
      }
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
