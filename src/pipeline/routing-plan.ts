import { fail, GatewayError, ok, type Result } from "../errors.ts";
import type { RunLimits } from "../records/run-limits.ts";
import type { ConfigCircuitBreaker, ConfigNestedTarget, ConfigRetry, ConfigStrategy, ConfigTarget, GatewayConfig } from "../generated/schemas.gen.ts";
import { compileQuery, type CompiledQuery, type RouteFacts } from "./route-conditions.ts";

/**
 * A config's routing as a tree, built once when the config is parsed: groups (a `strategy` over
 * `targets`) and leaves (one upstream's settings, inherited from the root and the parent).
 * `planLeaves` turns it into the request's ordered candidates. Building checks what the schema
 * cannot (names that `then` and `default` refer to, weights, queries), so a config that builds
 * never fails a request for its shape.
 */

/** The settings of one target: a config's root merged with the target it runs. */
export interface TargetSettings {
  provider?: string;
  apiKey?: string;
  organization?: string;
  project?: string;
  customHost?: string;
  virtualKey?: string;
  overrideParams?: Record<string, unknown>;
  inputGuardrails?: string[];
  outputGuardrails?: string[];
  requestTimeout?: number;
  /** The config's `cache` (root only): the proxy's cache hook reads it. */
  cache?: GatewayConfig["cache"];
  /** The config's `run_limits` (root only): the run breaker's rules for the requests it serves. */
  runLimits?: RunLimits;
  /** The slug of the stored config these settings come from; absent for an inline config. */
  storedAs?: string;
  /** The id and version of that stored config, for the request's log. */
  storedConfig?: { id: string; version: number };
}

/** When a candidate's answer sends the loop to the next candidate instead of the client. */
export interface FallbackPolicy {
  /** Upstream statuses that try the next candidate. */
  statuses: ReadonlySet<number>;
  /** Whether a timeout or a connection failure tries the next candidate. */
  unreachable: boolean;
}

/** Retries of one target before the loop moves on. */
export interface RetryPolicy {
  /** Retries after the first try. */
  attempts: number;
  statuses: ReadonlySet<number>;
}

/** When a target is skipped for a while (`cb_config`). */
export interface BreakerPolicy {
  failureThreshold: number;
  windowMs: number;
  cooldownMs: number;
  statuses: ReadonlySet<number>;
}

export interface RouteLeaf {
  /** Where it sits in the config: `""` for the root, `"1"` for targets[1], `"1.0"` nested. */
  path: string;
  settings: TargetSettings;
  retry: RetryPolicy;
  breaker: BreakerPolicy | null;
}

/** A leaf of the request's plan, with what sends the loop on from it. */
export interface PlannedLeaf extends RouteLeaf {
  fallback: FallbackPolicy;
}

interface Member {
  name?: string;
  weight: number;
  node: RouteNode;
}

interface RouteGroup {
  path: string;
  mode: ConfigStrategy["mode"];
  fallback: FallbackPolicy;
  members: Member[];
  conditions: Array<{ test: CompiledQuery; then: number }>;
  defaultMember: number | null;
}

export type RouteNode = { leaf: RouteLeaf } | { group: RouteGroup };

/** 429 and every 5xx: what moves a fallback on, and what counts against a circuit, unless the config lists its own. */
const FAILURE_STATUSES: ReadonlySet<number> = new Set([429, ...Array.from({ length: 100 }, (_, index) => 500 + index)]);
export const DEFAULT_RETRY_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);
const NO_RETRY: RetryPolicy = { attempts: 0, statuses: DEFAULT_RETRY_STATUSES };
const ANSWER_AS_IS: FallbackPolicy = { statuses: new Set(), unreachable: false };

type Level = Pick<GatewayConfig, "provider" | "api_key" | "upstream_organization" | "upstream_project" | "custom_host" | "virtual_key" | "override_params" | "request_timeout"> &
  Pick<ConfigTarget, "retry" | "cb_config" | "input_guardrails" | "output_guardrails">;

interface Inherited {
  settings: TargetSettings;
  retry?: ConfigRetry;
  breaker?: ConfigCircuitBreaker;
}

/** The settings of one level: its own fields, else its parent's. */
function inherit(parent: Inherited, level: Level, nested: boolean): Inherited {
  const base = parent.settings;
  // A key goes with where it was set: a target that names its own virtual key, or (nested,
  // where no key may be written) its own provider or host, does not take its parent's key.
  const ownDestination = level.virtual_key !== undefined || (nested && (level.provider !== undefined || level.custom_host !== undefined));
  const overrides = { ...base.overrideParams, ...level.override_params };
  const settings: TargetSettings = {
    provider: level.provider ?? base.provider,
    apiKey: level.api_key ?? (ownDestination ? undefined : base.apiKey),
    organization: level.upstream_organization ?? base.organization,
    project: level.upstream_project ?? base.project,
    customHost: level.custom_host ?? base.customHost,
    virtualKey: level.virtual_key ?? (level.api_key !== undefined ? undefined : base.virtualKey),
    overrideParams: Object.keys(overrides).length > 0 ? overrides : undefined,
    inputGuardrails: level.input_guardrails ?? base.inputGuardrails,
    outputGuardrails: level.output_guardrails ?? base.outputGuardrails,
    requestTimeout: level.request_timeout ?? base.requestTimeout,
    storedAs: base.storedAs,
  };
  for (const key of Object.keys(settings) as Array<keyof TargetSettings>) if (settings[key] === undefined) delete settings[key];
  return { settings, retry: level.retry ?? parent.retry, breaker: level.cb_config ?? parent.breaker };
}

function leafOf(path: string, inherited: Inherited): RouteNode {
  const { retry, breaker } = inherited;
  return {
    leaf: {
      path,
      settings: inherited.settings,
      retry: retry ? { attempts: retry.attempts ?? 0, statuses: retry.on_status_codes ? new Set(retry.on_status_codes) : DEFAULT_RETRY_STATUSES } : NO_RETRY,
      breaker: breaker
        ? {
            failureThreshold: breaker.failure_threshold,
            windowMs: breaker.window_ms,
            cooldownMs: breaker.cooldown_ms,
            statuses: breaker.on_status_codes ? new Set(breaker.on_status_codes) : FAILURE_STATUSES,
          }
        : null,
    },
  };
}

/**
 * The config's plan. `storedAs` names a stored config (for errors about its keys); `param` is
 * where errors point (`config`, `x-gateway-config`). Never throws.
 */
export function buildRoutePlan(config: GatewayConfig, storedAs: string | undefined, param: string): Result<RouteNode, GatewayError> {
  const root = inherit({ settings: storedAs ? { storedAs } : {} }, config, false);
  return nodeOf(config, root, "", param, 0);
}

function nodeOf(level: { strategy?: ConfigStrategy; targets?: Array<ConfigTarget | ConfigNestedTarget> }, inherited: Inherited, path: string, param: string, depth: number): Result<RouteNode, GatewayError> {
  const { targets, strategy } = level;
  if (!targets) {
    if (strategy && strategy.mode !== "single") return fail(new GatewayError("invalid_request", `${param}.strategy ${strategy.mode} needs targets.`, { param: `${param}.strategy` }));
    return ok(leafOf(path, inherited));
  }
  const members: Member[] = [];
  for (const [index, target] of targets.entries()) {
    const childPath = path === "" ? String(index) : `${path}.${index}`;
    const child = nodeOf(target as ConfigTarget, inherit(inherited, target, depth > 0), childPath, `${param}.targets.${index}`, depth + 1);
    if (!child.ok) return child;
    members.push({ name: target.name, weight: target.weight ?? 1, node: child.value });
  }
  const mode = strategy?.mode ?? "single";
  const named = new Map<string, number>();
  for (const [index, member] of members.entries()) {
    if (member.name === undefined) continue;
    if (named.has(member.name)) return fail(new GatewayError("invalid_request", `${param}.targets.${index}.name "${member.name}" is used twice.`, { param: `${param}.targets.${index}.name` }));
    named.set(member.name, index);
  }
  if (mode === "loadbalance" && !members.some((member) => member.weight > 0)) {
    return fail(new GatewayError("invalid_request", `${param}.targets: loadbalance needs a target with a weight above 0.`, { param: `${param}.targets` }));
  }
  const conditions: RouteGroup["conditions"] = [];
  let defaultMember: number | null = null;
  if (mode === "conditional") {
    if (!strategy?.conditions?.length) return fail(new GatewayError("invalid_request", `${param}.strategy.conditions: conditional needs at least one.`, { param: `${param}.strategy.conditions` }));
    for (const [index, condition] of strategy.conditions.entries()) {
      const here = `${param}.strategy.conditions.${index}`;
      const member = named.get(condition.then);
      if (member === undefined) return fail(new GatewayError("invalid_request", `${here}.then names no target: "${condition.then.slice(0, 100)}".`, { param: `${here}.then` }));
      const test = compileQuery(condition.query, `${here}.query`);
      if (!test.ok) return test;
      conditions.push({ test: test.value, then: member });
    }
    if (strategy.default !== undefined) {
      const member = named.get(strategy.default);
      if (member === undefined) return fail(new GatewayError("invalid_request", `${param}.strategy.default names no target: "${strategy.default.slice(0, 100)}".`, { param: `${param}.strategy.default` }));
      defaultMember = member;
    }
  }
  const fallback: FallbackPolicy =
    mode === "fallback" ? { statuses: strategy?.on_status_codes ? new Set(strategy.on_status_codes) : FAILURE_STATUSES, unreachable: true } : ANSWER_AS_IS;
  return ok({ group: { path, mode, fallback, members, conditions, defaultMember } });
}

/**
 * The request's candidates in the order they are tried. Fallback lists every member; the
 * others pick one (`loadbalance` at random by weight, `conditional` by the first matching
 * query). Each leaf carries the policy of the nearest fallback that has a member after it.
 */
export function planLeaves(plan: RouteNode, facts: RouteFacts, random: () => number = Math.random): Result<PlannedLeaf[], GatewayError> {
  const leaves: PlannedLeaf[] = [];
  const expand = (node: RouteNode, outer: FallbackPolicy): GatewayError | null => {
    if ("leaf" in node) {
      leaves.push({ ...node.leaf, fallback: outer });
      return null;
    }
    const { group } = node;
    if (group.mode === "fallback") {
      for (const [index, member] of group.members.entries()) {
        const error = expand(member.node, index === group.members.length - 1 ? outer : group.fallback);
        if (error) return error;
      }
      return null;
    }
    const chosen = chooseMember(group, facts, random);
    if (chosen === null) {
      const where = group.path === "" ? "the config's" : `target ${group.path}'s`;
      return new GatewayError("invalid_request", `No condition of ${where} conditional strategy matches this request, and it has no default.`, { param: "x-gateway-config" });
    }
    return expand(group.members[chosen]!.node, outer);
  };
  const error = expand(plan, ANSWER_AS_IS);
  return error ? fail(error) : ok(leaves);
}

function chooseMember(group: RouteGroup, facts: RouteFacts, random: () => number): number | null {
  if (group.mode === "conditional") return group.conditions.find((condition) => condition.test(facts))?.then ?? group.defaultMember;
  if (group.mode !== "loadbalance") return 0;
  const total = group.members.reduce((sum, member) => sum + member.weight, 0);
  let point = random() * total;
  for (const [index, member] of group.members.entries()) {
    if (member.weight <= 0) continue;
    point -= member.weight;
    if (point < 0) return index;
  }
  return group.members.findLastIndex((member) => member.weight > 0);
}
