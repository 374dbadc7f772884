import type { ControlPlaneCache } from "../control-plane/cache.ts";
import type { GuardrailRecord } from "../records/control-plane.ts";
import { openCheckSecrets } from "../records/guardrail-secrets.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import { fail, GatewayError, ok, type Result } from "../errors.ts";
import { runGuardrail, type CheckContext, type GuardrailResult } from "../guardrails/index.ts";
import type { Store } from "../store/open-store.ts";
import { CONFIG_HEADER } from "./request-config.ts";

export interface GuardrailStageDeps {
  store: Pick<Store, "guardrails">;
  controlPlane: ControlPlaneCache;
  secrets: SecretBox;
}

export type GuardrailStage = "input" | "output";

/**
 * The guardrails a config names, from the control-plane cache, their sealed header values
 * opened (kept in memory only). An unknown slug, or a header value that does not open, is a
 * 400 naming the config.
 */
export async function loadGuardrails(
  slugs: readonly string[] | undefined,
  workspaceId: string,
  deps: GuardrailStageDeps,
): Promise<Result<GuardrailRecord[], GatewayError>> {
  if (!slugs || slugs.length === 0) return ok([]);
  const loaded = await Promise.all(
    slugs.map((slug) =>
      deps.controlPlane.get("guardrail", workspaceId, slug, async () => {
        const record = await deps.store.guardrails.getBySlug(workspaceId, slug);
        return record ? usableGuardrail(record, deps.secrets) : null;
      }),
    ),
  );
  const missing = slugs.filter((_, index) => !loaded[index]);
  if (missing.length > 0) {
    const names = missing.map((slug) => `"${slug.slice(0, 200)}"`).join(", ");
    return fail(new GatewayError("invalid_request", `The config names guardrail(s) not in this workspace: ${names}.`, { param: CONFIG_HEADER }));
  }
  const records: GuardrailRecord[] = [];
  for (const result of loaded) {
    if (!result) continue;
    if (!result.ok) return result;
    records.push(result.value);
  }
  return ok(records);
}

function usableGuardrail(record: GuardrailRecord, secrets: SecretBox): Result<GuardrailRecord, GatewayError> {
  const opened = openCheckSecrets(record.checks, secrets);
  if (opened.ok) return ok({ ...record, checks: opened.value });
  const message = `Guardrail "${record.slug}" holds a ${opened.error} value that cannot be decrypted (it was altered, or sealed under another GATEWAY_ENCRYPTION_KEY): save the guardrail again with the value.`;
  return fail(new GatewayError("invalid_request", message, { param: CONFIG_HEADER }));
}

export interface StageOutcome {
  results: GuardrailResult[];
  /** True when a guardrail with `deny` failed. */
  denied: boolean;
}

/** Runs the guardrails of one stage concurrently. Never throws (checks report their own failures). */
export async function runGuardrailStage(
  guardrails: readonly GuardrailRecord[],
  context: Omit<CheckContext, "stage">,
  stage: GuardrailStage,
): Promise<StageOutcome> {
  if (guardrails.length === 0) return { results: [], denied: false };
  const results = await Promise.all(guardrails.map((guardrail) => runGuardrail(guardrail, { ...context, stage })));
  return { results, denied: results.some((result) => !result.verdict && result.deny) };
}

/** Every guardrail result of a request, by stage: the `hook_results` of responses and denials. */
export interface HookResults {
  input: GuardrailResult[];
  output: GuardrailResult[];
}

/** The 446 answer of a denial; the body carries every check's result. */
export function guardrailDenial(hookResults: HookResults, stage: GuardrailStage): GatewayError {
  const failed = hookResults[stage].filter((result) => !result.verdict && result.deny).map((result) => result.guardrail);
  return new GatewayError("guardrail_denied", `The ${stage} was denied by guardrail(s): ${failed.join(", ")}.`, {
    details: { hook_results: hookResults },
  });
}
