/** Test helpers for the guardrail checks (imported by tests only). */
import { ok } from "../errors.ts";
import type { CheckContext, CheckOutcome, GuardrailCheck } from "./types.ts";

/** A check context with harmless defaults: fetch fails loudly, every URL passes `checkUrl`. */
export function checkContext(overrides: Partial<CheckContext> = {}): CheckContext {
  return {
    text: "",
    stage: "input",
    model: "gpt-4o-mini",
    metadata: {},
    fetch: async () => {
      throw new Error("fetch not expected in this test");
    },
    checkUrl: async (rawUrl) => ok(new URL(rawUrl)),
    ...overrides,
  };
}

/** Parses `params` with the check's schema and runs a synchronous check. */
export function runSync(check: GuardrailCheck, params: unknown, overrides: Partial<CheckContext> = {}): CheckOutcome {
  const outcome = check.run(check.params.parse(params), checkContext(overrides));
  if (outcome instanceof Promise) throw new Error(`${check.type} is not synchronous`);
  return outcome;
}
