/** The built-in checks by type, and the validation of check specs when a guardrail is saved. */
import type { GuardrailCheckSpec } from "../records/control-plane.ts";
import { fail, GatewayError, ok, type Result } from "../errors.ts";
import type { z } from "zod";
import { allowedModels } from "./checks/allowed_models.ts";
import { characterCount } from "./checks/character_count.ts";
import { contains } from "./checks/contains.ts";
import { containsCode } from "./checks/contains_code.ts";
import { jsonKeys } from "./checks/json_keys.ts";
import { jsonSchema } from "./checks/json_schema.ts";
import { pii } from "./checks/pii.ts";
import { regexMatch } from "./checks/regex_match.ts";
import { requiredMetadataKeys } from "./checks/required_metadata_keys.ts";
import { sentenceCount } from "./checks/sentence_count.ts";
import { validUrls } from "./checks/valid_urls.ts";
import { webhook } from "./checks/webhook.ts";
import { wordCount } from "./checks/word_count.ts";
import type { GuardrailCheck } from "./types.ts";

/** Every built-in check, in the order they are listed to users. */
export const CHECKS: readonly GuardrailCheck[] = [
  regexMatch,
  contains,
  wordCount,
  sentenceCount,
  characterCount,
  jsonSchema,
  jsonKeys,
  validUrls,
  containsCode,
  allowedModels,
  requiredMetadataKeys,
  pii,
  webhook,
];

const BY_TYPE = new Map<string, GuardrailCheck>(CHECKS.map((check) => [check.type, check]));

/** The known check types. */
export const CHECK_TYPES: readonly string[] = CHECKS.map((check) => check.type);

/** A guardrail holds at most this many checks. */
export const MAX_CHECKS = 50;

export function findCheck(type: string): GuardrailCheck | undefined {
  return BY_TYPE.get(type);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalid(param: string, message: string): GatewayError {
  return new GatewayError("invalid_request", message, { param });
}

/** The 400 for the first issue of a params parse, naming `checks.<i>.params.<name>`. */
function paramsError(error: z.ZodError, prefix: string): GatewayError {
  const issue = error.issues[0];
  if (!issue) return invalid(prefix, `Invalid ${prefix}.`);
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((key) => `"${key}"`).join(", ");
    const at = issue.path.length > 0 ? `${prefix}.${issue.path.map(String).join(".")}` : prefix;
    return invalid(issue.path.length > 0 ? `${prefix}.${String(issue.path[0])}` : `${prefix}.${issue.keys[0] ?? ""}`, `Unknown key(s) in ${at}: ${keys}.`);
  }
  const full = [prefix, ...issue.path.map(String)].join(".");
  const param = issue.path.length > 0 ? `${prefix}.${String(issue.path[0])}` : prefix;
  return invalid(param, `Invalid ${full}: ${issue.message}.`.replace(/\.\.$/, "."));
}

/** Parses one spec's params against its check: the parsed params, or the 400 naming the field. */
export function parseParams(check: GuardrailCheck, params: unknown, prefix: string): Result<Record<string, unknown>, GatewayError> {
  const parsed = check.params.safeParse(params);
  return parsed.success ? ok(parsed.data as Record<string, unknown>) : fail(paramsError(parsed.error, prefix));
}

/**
 * Validates check specs at create/update time: each type known, each params valid for its check
 * (regexes and JSON Schemas compiled). Returns the specs as stored (`{ type, params }`, other
 * keys dropped); errors are 400 `invalid_request` naming `checks.<i>.type` or
 * `checks.<i>.params.<name>`. Never throws.
 */
export function validateCheckSpecs(specs: GuardrailCheckSpec[]): Result<GuardrailCheckSpec[], GatewayError> {
  if (!Array.isArray(specs)) return fail(invalid("checks", "checks must be an array."));
  if (specs.length > MAX_CHECKS) return fail(invalid("checks", `A guardrail holds at most ${MAX_CHECKS} checks.`));
  const validated: GuardrailCheckSpec[] = [];
  for (const [index, spec] of specs.entries()) {
    const at = `checks.${index}`;
    if (!isRecord(spec)) return fail(invalid(at, `${at} must be an object with a type and params.`));
    const type: unknown = spec.type;
    const check = typeof type === "string" ? findCheck(type) : undefined;
    if (!check) {
      const shown = typeof type === "string" ? `"${type.slice(0, 100)}"` : "missing";
      return fail(invalid(`${at}.type`, `Unknown check type ${shown} at ${at}.type; known types: ${CHECK_TYPES.join(", ")}.`));
    }
    const params: unknown = spec.params ?? {};
    if (!isRecord(params)) return fail(invalid(`${at}.params`, `${at}.params must be an object.`));
    const parsed = parseParams(check, params, `${at}.params`);
    if (!parsed.ok) return parsed;
    validated.push({ type: check.type, params: parsed.value });
  }
  return ok(validated);
}
