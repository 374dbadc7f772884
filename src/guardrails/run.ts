/** Runs a guardrail's checks against one text. */
import type { GuardrailCheckSpec, GuardrailRecord } from "../records/control-plane.ts";
import { findCheck, parseParams } from "./registry.ts";
import type { CheckContext, CheckOutcome, CheckResult, GuardrailCheck, GuardrailResult } from "./types.ts";

/** A check without its own limit gets this long; past it, it fails (its work is abandoned, not stopped). */
export const DEFAULT_CHECK_TIMEOUT_MS = 5_000;

type Prepared = { ok: true; check: GuardrailCheck; params: Record<string, unknown> } | { ok: false; explanation: string };

/** Parsed params per spec object: guardrail records come from a cache, so each spec is parsed once. */
const prepared = new WeakMap<GuardrailCheckSpec, Prepared>();

function prepare(spec: GuardrailCheckSpec): Prepared {
  const cached = prepared.get(spec);
  if (cached) return cached;
  let result: Prepared;
  const check = findCheck(spec.type);
  if (!check) {
    result = { ok: false, explanation: `Unknown check type "${String(spec.type).slice(0, 100)}".` };
  } else {
    const parsed = parseParams(check, spec.params ?? {}, "params");
    result = parsed.ok ? { ok: true, check, params: parsed.value } : { ok: false, explanation: `The check's params are invalid: ${parsed.error.message}` };
  }
  if (typeof spec === "object" && spec !== null) prepared.set(spec, result);
  return result;
}

async function withTimeout(work: Promise<CheckOutcome>, ms: number): Promise<CheckOutcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<CheckOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ verdict: false, explanation: `The check did not finish within ${ms} ms.` }), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function runCheck(spec: GuardrailCheckSpec, ctx: CheckContext): Promise<CheckResult> {
  const started = performance.now();
  let outcome: CheckOutcome;
  try {
    const ready = prepare(spec);
    if (ready.ok) {
      const { check, params } = ready;
      const work = Promise.resolve().then(() => check.run(params, ctx));
      outcome = await withTimeout(work, check.timeoutMs?.(params) ?? DEFAULT_CHECK_TIMEOUT_MS);
    } else {
      outcome = { verdict: false, explanation: ready.explanation };
    }
  } catch {
    outcome = { verdict: false, explanation: "The check failed with an internal error." };
  }
  const result: CheckResult = {
    check: String(spec?.type),
    verdict: outcome.verdict === true,
    explanation: outcome.explanation,
    latency_ms: Math.round(performance.now() - started),
  };
  if (outcome.data) result.data = outcome.data;
  return result;
}

/**
 * Runs every check of the guardrail concurrently. A check that throws, times out or has an unknown
 * type or invalid params fails with an explanation. `verdict` is true when every check passed (so a
 * guardrail without checks passes); `deny` is the guardrail's action. Never throws.
 */
export async function runGuardrail(
  guardrail: Pick<GuardrailRecord, "slug" | "checks" | "action">,
  ctx: CheckContext,
): Promise<GuardrailResult> {
  const specs = Array.isArray(guardrail.checks) ? guardrail.checks : [];
  const checks = await Promise.all(specs.map((spec) => runCheck(spec, ctx)));
  return {
    guardrail: guardrail.slug,
    stage: ctx.stage,
    verdict: checks.every((check) => check.verdict),
    deny: guardrail.action?.deny === true,
    checks,
  };
}
