import type { CheckCustomHost } from "../net/custom-host.ts";
import type { GuardrailCheckSpec as GuardrailCheckBody } from "../generated/schemas.gen.ts";
import { validateCheckSpecs } from "../guardrails/index.ts";
import type { GuardrailCheckSpec } from "../records/control-plane.ts";
import { allowedCustomHost } from "./virtual-key-fields.ts";

/**
 * The checks as stored (`params` default to `{}`), each known and with valid params; else a 400
 * naming `checks.<i>.…`. A webhook's URL must also pass the custom-host (SSRF) guard now, as it
 * must before each call, so a guardrail that could never reach its webhook is not saved.
 */
export async function validatedChecks(checks: GuardrailCheckBody[], deps: { checkCustomHost: CheckCustomHost }): Promise<GuardrailCheckSpec[]> {
  const validated = validateCheckSpecs(checks.map((check) => ({ type: check.type, params: check.params ?? {} })));
  if (!validated.ok) throw validated.error;
  for (const [index, check] of validated.value.entries()) {
    if (check.type === "webhook" && typeof check.params.url === "string") await allowedCustomHost(check.params.url, `checks.${index}.params.url`, deps);
  }
  return validated.value;
}
