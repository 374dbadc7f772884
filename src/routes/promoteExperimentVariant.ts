import { promoteExperimentVariantRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { configSubject, experimentSubject } from "../audit/audit-subjects.ts";
import { openConfigSecrets, type StoredConfig } from "../records/config-secrets.ts";
import { experimentView } from "../control-plane/experiment-view.ts";
import { GatewayError } from "../errors.ts";
import { promotedConfig } from "../experiments/promoted-config.ts";
import { isoNow, uuidv4 } from "../lib/ids.ts";
import { storableConfig } from "../pipeline/storable-config.ts";
import { PRODUCTION_LABEL } from "../records/control-plane.ts";
import { moveLabel } from "./prompts/move-label.ts";

/**
 * Concludes an experiment with one variant, written where it lasts: the prompt's production
 * label, then each config that names the experiment, then the experiment itself (so a write that
 * fails leaves it promotable again; each write is audited on its own).
 */
export function registerPromoteExperimentVariant(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(promoteExperimentVariantRoute, async (c) => {
    const auth = c.get("auth");
    const { workspaceId } = auth;
    const { id } = c.req.valid("param");
    const { variant: name } = c.req.valid("json");
    const experiment = await deps.store.experiments.get(workspaceId, id);
    if (!experiment) throw new GatewayError("not_found", `No experiment ${id} in this workspace.`, { param: "id" });
    if (experiment.status !== "running" && experiment.status !== "stopped") {
      throw new GatewayError("invalid_request", `Only a running or stopped experiment is promoted (it is ${experiment.status}).`, { param: "id" });
    }
    const variant = experiment.variants.find((candidate) => candidate.name === name);
    if (!variant) throw new GatewayError("invalid_request", `Experiment ${id} has no variant "${name.slice(0, 100)}".`, { param: "variant" });

    if (experiment.promptId !== null && (variant.prompt_version !== undefined || variant.prompt_label !== undefined)) {
      const prompt = await deps.store.prompts.get(workspaceId, experiment.promptId);
      const version = variant.prompt_version ?? (variant.prompt_label === undefined ? undefined : prompt?.labels[variant.prompt_label]);
      if (!prompt || version === undefined) throw new GatewayError("invalid_request", `The variant's prompt version is gone: promote another.`, { param: "variant" });
      await moveLabel(c, deps, { promptId: prompt.id, label: PRODUCTION_LABEL, version, action: "prompt.published" });
    }

    for (const config of await deps.store.configs.list(workspaceId)) {
      const stored = JSON.parse(config.latest.config) as StoredConfig;
      if (stored.experiment !== id) continue;
      const opened = openConfigSecrets(stored, deps.secrets);
      if (!opened.ok) throw new GatewayError("invalid_request", `Config "${config.slug}" holds a ${opened.error} that cannot be decrypted: save it again first.`, { param: "id" });
      const hasExperiment = async (other: string) => (await deps.store.experiments.get(workspaceId, other)) !== undefined;
      const text = await storableConfig(promotedConfig(opened.value, variant), { ...deps, hasExperiment }, config.latest.config);
      await auditedChange(c, deps.store, "config.updated", configSubject, async (tx) => {
        const before = await tx.configs.getBySlug(workspaceId, config.slug);
        return before && { before, after: await tx.configs.update(workspaceId, config.slug, { config: text, versionId: uuidv4(), updatedBy: auth.keyId, at: isoNow() }) };
      });
      deps.controlPlane.forget("config", workspaceId, config.slug);
      deps.controlPlane.forget("default-config", workspaceId, "");
    }

    const at = isoNow();
    const changed = await auditedChange(c, deps.store, "experiment.promoted", experimentSubject, async (tx) => {
      const before = await tx.experiments.get(workspaceId, id);
      const after = await tx.experiments.update(workspaceId, id, { status: "concluded", concludedAt: at, promotedVariant: variant.name, updatedBy: auth.keyId, at }, ["running", "stopped"]);
      if (!before || !after) throw new GatewayError("invalid_request", `Experiment ${id} changed status meanwhile: read it and try again.`, { param: "id" });
      return { before, after };
    });
    deps.controlPlane.forget("experiment", workspaceId, id);
    return c.json(experimentView(changed!.after!), 200);
  });
}
