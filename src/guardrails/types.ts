import type { z } from "zod";
import type { FetchLike } from "../net/upstream-call.ts";
import type { GatewayError, Result } from "../errors.ts";

/** What a check sees: the text under check and the request around it. */
export interface CheckContext {
  /** The text under check: for input, the concatenated text of the request messages; for output, the assistant's text. */
  text: string;
  stage: "input" | "output";
  model: string | null;
  metadata: Record<string, string>;
  fetch: FetchLike;
  /** SSRF gate for webhook URLs: the gateway's custom-host check. */
  checkUrl: (rawUrl: string, field?: string) => Promise<Result<Readonly<URL>, GatewayError>>;
  signal?: AbortSignal;
}

/** A check's own answer. `explanation` is a short human sentence that never echoes secrets. */
export interface CheckOutcome {
  verdict: boolean;
  explanation: string;
  data?: Record<string, unknown>;
}

/** One check's result inside a guardrail result; `check` is the check's type. */
export interface CheckResult {
  check: string;
  verdict: boolean;
  explanation: string;
  latency_ms: number;
  data?: Record<string, unknown>;
}

/** One guardrail's result at one stage. `deny` is the guardrail's action; it denies when `!verdict && deny`. */
export interface GuardrailResult {
  /** The guardrail's slug. */
  guardrail: string;
  stage: "input" | "output";
  verdict: boolean;
  deny: boolean;
  checks: CheckResult[];
}

/**
 * A built-in check: its type, a strict zod schema of its params (refinements included, so a spec
 * that parses can run), and a pure-as-possible `run`. `run` may throw; the runner turns that into a
 * failed check. `timeoutMs` overrides the runner's default time limit for this check.
 */
export interface GuardrailCheck<S extends z.ZodType = z.ZodType> {
  readonly type: string;
  readonly params: S;
  run(params: z.output<S>, ctx: CheckContext): CheckOutcome | Promise<CheckOutcome>;
  timeoutMs?(params: z.output<S>): number;
}

/** Identity helper that infers a check's params type from its schema. */
export function defineCheck<S extends z.ZodType>(check: GuardrailCheck<S>): GuardrailCheck<S> {
  return check;
}
