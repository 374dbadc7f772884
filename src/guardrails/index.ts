/** Guardrails: built-in checks, spec validation, and running a guardrail against a text. */
export type { CheckContext, CheckOutcome, CheckResult, GuardrailCheck, GuardrailResult } from "./types.ts";
export { CHECK_TYPES, CHECKS, findCheck, MAX_CHECKS, validateCheckSpecs } from "./registry.ts";
export { DEFAULT_CHECK_TIMEOUT_MS, runGuardrail } from "./run.ts";
