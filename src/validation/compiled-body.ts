import { z } from "@hono/zod-openapi";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "./json-depth.ts";

/** A compiled check of a request body: true only for a value the body's zod schema accepts unchanged. */
export type BodyCheck = (value: unknown) => boolean;

/**
 * The zod schema a route validates its JSON body with: a body nested deeper than
 * `MAX_JSON_DEPTH` is refused; a body the compiled check accepts is returned as sent (no parse,
 * no copy); any other body is parsed by `schema`, whose output or issues (paths and messages)
 * are the answer. Built from public zod API only.
 */
export function compiledBody<S extends z.ZodType>(schema: S, check: BodyCheck) {
  return z.unknown().transform((value, ctx): z.output<S> => {
    if (nestedDeeperThan(value)) {
      ctx.addIssue({ code: "custom", message: `the JSON body is nested deeper than ${MAX_JSON_DEPTH} levels` });
      return z.NEVER;
    }
    if (check(value)) return value as z.output<S>;
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    for (const issue of result.error.issues) ctx.addIssue({ ...issue });
    return z.NEVER;
  });
}
