/**
 * Limits on what users store and the gateway interprets later (configs, virtual keys), checked
 * when they are saved (and when a config is sent inline), so that a stored value can never make
 * a later request fail with a 5xx or cost more than a bounded amount of work. Each refusal is a
 * 400 `invalid_request` naming the field. Templates, patterns and JSON Schemas have their own
 * limits beside their code (`prompts/template-limits.ts`, `guardrails/linear-regex.ts`,
 * `guardrails/schema-limits.ts`); docs/control-plane.md ("Limits on stored values") lists them all.
 */
import { GatewayError } from "../errors.ts";
import type { ConfigStrategy, GatewayConfig } from "../generated/schemas.gen.ts";
import { findProvider } from "../providers/catalogue.ts";

/** Targets of one config in all, nested ones included (each list already holds at most 50). */
export const MAX_CONFIG_TARGETS = 100;
/** Query terms (field tests, operators, `$and`/`$or` items) across all conditions of one config. */
export const MAX_CONDITION_TERMS = 1000;
/** `$regex` patterns across all conditions of one config. */
export const MAX_CONDITION_PATTERNS = 100;
/** Guardrail slugs in one `input_guardrails` or `output_guardrails` list. */
export const MAX_GUARDRAILS_PER_LIST = 20;
/** A custom host URL (configs, virtual keys), as webhook URLs. */
export const MAX_HOST_CHARS = 2048;
/** An upstream key (`api_key`, a virtual key's `key`). */
export const MAX_KEY_CHARS = 8192;
/** `upstream_organization` and `upstream_project`. */
export const MAX_HEADER_FIELD_CHARS = 256;

/**
 * Values the gateway sends as HTTP header values must be printable ASCII: a line break or a
 * character past U+00FF makes `fetch` throw before anything is sent, which would turn every
 * request using the stored value into a 502. A key holds no spaces either.
 */
const KEY_CHARS = /^[\x21-\x7e]+$/;
const HEADER_FIELD_CHARS = /^[\x20-\x7e]*$/;

function refuse(param: string, message: string): GatewayError {
  return new GatewayError("invalid_request", message, { param });
}

/** The fields the gateway sends upstream as they are: key, organisation, project and host. */
export interface UpstreamFields {
  api_key?: string | null;
  upstream_organization?: string | null;
  upstream_project?: string | null;
  custom_host?: string | null;
}

/**
 * The first problem with the upstream fields of one level, or null. `keyField` is how the key
 * is called where it was given (`api_key` in a config, `key` on a virtual key); `provider` is
 * the catalogue id the key goes to, when known (a key its provider exchanges as a document is
 * not a header value). Never echoes a value. Never throws.
 */
export function upstreamFieldsProblem(fields: UpstreamFields, param: string, keyField = "api_key", provider?: string): GatewayError | null {
  const at = (field: string) => (param === "" ? field : `${param}.${field}`);
  const key = fields.api_key;
  if (typeof key === "string") {
    if (key.length > MAX_KEY_CHARS) return refuse(at(keyField), `${at(keyField)} is longer than ${MAX_KEY_CHARS} characters.`);
    const document = provider !== undefined && findProvider(provider)?.keyIsDocument === true;
    if (!document && !KEY_CHARS.test(key)) return refuse(at(keyField), `${at(keyField)} may hold only printable ASCII characters without spaces (it is sent as an HTTP header).`);
  }
  for (const field of ["upstream_organization", "upstream_project"] as const) {
    const value = fields[field];
    if (typeof value !== "string") continue;
    if (value.length > MAX_HEADER_FIELD_CHARS) return refuse(at(field), `${at(field)} is longer than ${MAX_HEADER_FIELD_CHARS} characters.`);
    if (!HEADER_FIELD_CHARS.test(value)) return refuse(at(field), `${at(field)} may hold only printable ASCII characters (it is sent as an HTTP header).`);
  }
  const host = fields.custom_host;
  if (typeof host === "string" && host.length > MAX_HOST_CHARS) return refuse(at("custom_host"), `${at("custom_host")} is longer than ${MAX_HOST_CHARS} characters.`);
  return null;
}

interface Level extends UpstreamFields {
  provider?: string;
  input_guardrails?: string[];
  output_guardrails?: string[];
  strategy?: ConfigStrategy;
  targets?: Level[];
}

/**
 * How many terms a query holds (keys of its objects: fields, operators, `$and`/`$or`), and how
 * many of them are `$regex`; stops counting past the limit. The values an operator compares with
 * (`$in` lists, `$eq` objects) are not terms: their cost is bounded by their own size.
 */
function countTerms(query: unknown, counts: { terms: number; patterns: number }): void {
  const pending: unknown[] = [query];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (counts.terms > MAX_CONDITION_TERMS) return;
    if (node === null || typeof node !== "object") continue;
    if (Array.isArray(node)) {
      pending.push(...node);
      continue;
    }
    for (const [key, value] of Object.entries(node)) {
      counts.terms += 1;
      if (key === "$regex") counts.patterns += 1;
      const operand = key.startsWith("$") && key !== "$and" && key !== "$or";
      if (!operand && value !== null && typeof value === "object") pending.push(value);
    }
  }
}

/**
 * The first limit a config breaks, or null: targets in all, condition terms and patterns,
 * guardrail lists, and the upstream fields of every level. `param` is where errors point
 * (`config`, `x-gateway-config`). Runs before the routing plan is built. Never throws.
 */
export function configLimitProblem(config: GatewayConfig, param: string): GatewayError | null {
  const run = config.run_limits;
  if (run?.velocity_scope !== undefined && run.max_cost_usd_per_minute === undefined) {
    return refuse(`${param}.run_limits.velocity_scope`, `${param}.run_limits.velocity_scope scopes max_cost_usd_per_minute, which is not set.`);
  }
  let targets = 0;
  const counts = { terms: 0, patterns: 0 };
  // Each level with the provider it inherits, so a key goes through its own provider's rule.
  const pending: Array<[Level, string, string | undefined]> = [[config as Level, param, config.provider]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [level, at, provider] = next;
    const fields = upstreamFieldsProblem(level, at, "api_key", provider);
    if (fields) return fields;
    for (const list of ["input_guardrails", "output_guardrails"] as const) {
      const names = level[list];
      if (names && names.length > MAX_GUARDRAILS_PER_LIST) return refuse(`${at}.${list}`, `${at}.${list} lists more than ${MAX_GUARDRAILS_PER_LIST} guardrails.`);
    }
    for (const [index, condition] of (level.strategy?.conditions ?? []).entries()) {
      countTerms(condition.query, counts);
      const here = `${at}.strategy.conditions.${index}.query`;
      if (counts.terms > MAX_CONDITION_TERMS) return refuse(here, `The config's conditions hold more than ${MAX_CONDITION_TERMS} terms in all (at ${here}).`);
      if (counts.patterns > MAX_CONDITION_PATTERNS) return refuse(here, `The config's conditions hold more than ${MAX_CONDITION_PATTERNS} $regex patterns in all (at ${here}).`);
    }
    for (const [index, target] of (level.targets ?? []).entries()) {
      targets += 1;
      if (targets > MAX_CONFIG_TARGETS) return refuse(`${at}.targets`, `A config holds at most ${MAX_CONFIG_TARGETS} targets in all, nested ones included.`);
      pending.push([target, `${at}.targets.${index}`, target.provider ?? provider]);
    }
  }
  return null;
}
