import type { ControlPlaneCache } from "../control-plane/cache.ts";
import type { GuardrailRecord } from "../records/control-plane.ts";
import { openCheckSecrets } from "../records/guardrail-secrets.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import { fail, GatewayError, ok, type Result } from "../errors.ts";
import { runGuardrail, type CheckContext, type GuardrailResult } from "../guardrails/index.ts";
import type { Store } from "../store/open-store.ts";
import { CONFIG_HEADER } from "./request-config.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import type { GuardrailRuns } from "../logging/outcome.ts";
import type { TargetSettings } from "./routing-plan.ts";

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

export interface StageChecks {
  input: GuardrailRecord[];
  output: GuardrailRecord[];
}

/**
 * The config's guardrails, loaded; refused (400) when the operation cannot give them the text
 * they judge, so that no request is served unchecked.
 */
export async function guardrailsOf(
  operation: OperationDescriptor,
  settings: TargetSettings | null,
  workspaceId: string,
  deps: GuardrailStageDeps,
  hasJsonBody: boolean,
): Promise<Result<StageChecks, GatewayError>> {
  // A config without guardrails waits on no promise.
  const input = settings?.inputGuardrails?.length ? await loadGuardrails(settings.inputGuardrails, workspaceId, deps) : ok([]);
  if (!input.ok) return input;
  const output = settings?.outputGuardrails?.length ? await loadGuardrails(settings.outputGuardrails, workspaceId, deps) : ok([]);
  if (!output.ok) return output;
  const judges = hasJsonBody ? operation.guardrails : undefined;
  const inputRefused = input.value.length > 0 && !judges;
  const outputRefused = output.value.length > 0 && (!judges?.output || !judges.streamOutput);
  if (inputRefused || outputRefused) {
    const stage = inputRefused ? "input" : "output";
    return fail(new GatewayError("invalid_request", `The config attaches ${stage} guardrails, which ${operation.id} cannot run: remove them from the config for this operation.`, { param: CONFIG_HEADER }));
  }
  return ok({ input: input.value, output: output.value });
}

/** The guardrail stage of one request: runs a stage's checks and keeps their results, per stage. */
export interface GuardrailJudge {
  /** Runs one stage; the 446 to answer when a `deny` check failed. */
  run(stage: GuardrailStage, text: string): Promise<GatewayError | null>;
  /** What answers carry as `hook_results`. */
  hookResults: HookResults;
  inputRuns: GuardrailRuns;
  outputRuns: GuardrailRuns;
  allRuns(): GuardrailRuns;
}

type JudgeContext = Parameters<typeof runGuardrailStage>[1];

/** Null when the config attaches no guardrails. */
export function guardrailJudge(checks: StageChecks, context: Omit<JudgeContext, "text">): GuardrailJudge | null {
  if (checks.input.length + checks.output.length === 0) return null;
  const hookResults: HookResults = { input: [], output: [] };
  const runs = { input: { results: [], timings: [] } as GuardrailRuns, output: { results: [], timings: [] } as GuardrailRuns };
  return {
    hookResults,
    inputRuns: runs.input,
    outputRuns: runs.output,
    allRuns: () => ({ results: [...runs.input.results, ...runs.output.results], timings: [...runs.input.timings, ...runs.output.timings] }),
    async run(stage, text) {
      const startedAt = Date.now();
      const started = performance.now();
      const outcome = await runGuardrailStage(checks[stage], { ...context, text }, stage);
      runs[stage].timings.push({ stage, startedAt, durationMs: Math.round((performance.now() - started) * 1000) / 1000 });
      runs[stage].results.push(...outcome.results);
      hookResults[stage] = outcome.results;
      return outcome.denied ? guardrailDenial(hookResults, stage) : null;
    },
  };
}
