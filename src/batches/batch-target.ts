/**
 * The target a batch or file call names: resolved as any request's (headers, virtual key,
 * config), its first candidate; a batch has no fallback, since its job lives on one provider.
 */
import type { GatewayError, Result } from "../errors.ts";
import { ok } from "../errors.ts";
import type { Target } from "../operation/target.ts";
import { loadRequestConfig, type ConfigSourceDeps } from "../pipeline/request-config.ts";
import { resolveCandidates, type TargetHeaders, type TargetResolverDeps } from "../pipeline/target-resolution.ts";

export type BatchTargetDeps = TargetResolverDeps & ConfigSourceDeps & { store: TargetResolverDeps["store"] & ConfigSourceDeps["store"] };

export async function batchTarget(
  headers: TargetHeaders & { config?: string },
  request: { workspaceId: string; route: string; metadata: Readonly<Record<string, string>> },
  deps: BatchTargetDeps,
): Promise<Result<Target, GatewayError>> {
  const config = await loadRequestConfig(headers.config, request.workspaceId, deps);
  if (!config.ok) return config;
  const candidates = await resolveCandidates({ model: null, headers, config: config.value, workspaceId: request.workspaceId, facts: { metadata: request.metadata, params: {}, route: request.route } }, deps);
  if (!candidates.ok) return candidates;
  return ok(candidates.value[0]!.target);
}
