import type { z } from "zod";
import { GatewayConfigSchema, type GatewayConfig } from "../generated/schemas.gen.ts";
import { fail, GatewayError, ok, type Result } from "../errors.ts";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "../validation/json-depth.ts";
import { buildRoutePlan } from "./routing-plan.ts";
import { configLimitProblem } from "../control-plane/stored-limits.ts";

export type { GatewayConfig };

export interface ParsedConfig {
  /** The config as stored: JSON text. */
  text: string;
  value: GatewayConfig;
}

/**
 * Parses and validates a config given as an object or as JSON text. Errors name the field
 * under `param` (e.g. `config.targets.0.weight`) and list unknown keys by name. Never throws.
 */
export function parseGatewayConfig(input: unknown, param = "config"): Result<ParsedConfig, GatewayError> {
  let candidate = input;
  if (typeof input === "string") {
    try {
      candidate = JSON.parse(input);
    } catch {
      return fail(new GatewayError("invalid_request", `${param} is not valid JSON.`, { param }));
    }
  }
  if (!candidate || typeof candidate !== "object" || Array.isArray(candidate)) {
    return fail(new GatewayError("invalid_request", `${param} must be a JSON object.`, { param }));
  }
  if (nestedDeeperThan(candidate)) {
    return fail(new GatewayError("invalid_request", `${param} is nested deeper than ${MAX_JSON_DEPTH} levels.`, { param }));
  }
  const parsed = GatewayConfigSchema.safeParse(candidate);
  if (!parsed.success) return fail(configError(parsed.error, param));
  const limit = configLimitProblem(parsed.data, param);
  if (limit) return fail(limit);
  // What the schema cannot say: names that conditions point at, weights, queries and patterns.
  const plan = buildRoutePlan(parsed.data, undefined, param);
  if (!plan.ok) return plan;
  return ok({ text: JSON.stringify(parsed.data), value: parsed.data });
}

function configError(error: z.ZodError, param: string): GatewayError {
  const issue = error.issues[0];
  if (!issue) return new GatewayError("invalid_request", `${param} is invalid.`, { param });
  const path = [param, ...issue.path.map(String)].join(".");
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((key) => `"${key}"`).join(", ");
    return new GatewayError("invalid_request", `Unknown key(s) in ${path}: ${keys}.`, { param: path });
  }
  return new GatewayError("invalid_request", `Invalid ${path}: ${issue.message}`, { param: path });
}
