import { z, type RouteConfig } from "@hono/zod-openapi";
import { compileJsonPrecheck, type JsonPrecheck } from "./json-precheck.ts";

const prepared = new WeakSet<object>();

/**
 * Makes the given routes' request validation cheaper without changing a single answer.
 * zod-openapi validates with `safeParseAsync`; here every request schema answers it with the
 * synchronous parse (zod runs its compiled object path only there; none of the gateway's
 * schemas refine asynchronously, and one that did still gets the async path). JSON bodies go
 * through a compiled JSON Schema check first: a body it passes is accepted as it is, which
 * on every inference request costs a fraction of zod's parse and copy. A body it fails is
 * parsed by zod, which decides and names the field.
 */
export function speedUpValidation(routes: Iterable<RouteConfig>): void {
  for (const route of routes) {
    const request = route.request;
    if (!request) continue;
    for (const media of Object.values(request.body?.content ?? {})) {
      if (media && "schema" in media && media.schema instanceof z.ZodType) prepare(media.schema, true);
    }
    for (const schema of [request.query, request.params, request.headers]) {
      if (schema instanceof z.ZodType) prepare(schema, false);
    }
  }
}

function prepare(schema: z.ZodType, withPrecheck: boolean): void {
  if (prepared.has(schema)) return;
  prepared.add(schema);
  // Compiled at first use: most routes are rarely called, and each compiled check holds memory.
  let accepts: JsonPrecheck | null = null;
  let compiled = !withPrecheck;
  const parseAsync = schema.safeParseAsync.bind(schema);
  schema.safeParseAsync = async (data, params) => {
    if (!compiled) {
      compiled = true;
      accepts = compileJsonPrecheck(schema);
    }
    if (accepts?.(data)) return { success: true, data };
    try {
      return schema.safeParse(data, params);
    } catch (error) {
      if (error instanceof z.core.$ZodAsyncError) return parseAsync(data, params);
      throw error;
    }
  };
}
