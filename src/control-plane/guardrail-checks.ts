import type { GuardrailCheckSpec as GuardrailCheckBody } from "../generated/schemas.gen.ts";
import { validateCheckSpecs } from "../guardrails/index.ts";
import type { GuardrailCheckSpec } from "./records.ts";

/** The checks as stored (`params` default to `{}`), each known and with valid params; else a 400 naming `checks.<i>.…`. */
export function validatedChecks(checks: GuardrailCheckBody[]): GuardrailCheckSpec[] {
  const validated = validateCheckSpecs(checks.map((check) => ({ type: check.type, params: check.params ?? {} })));
  if (!validated.ok) throw validated.error;
  return validated.value;
}
