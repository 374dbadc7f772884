import { updateConfigRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { configSubject } from "../audit/audit-subjects.ts";
import { configVersionView } from "../control-plane/views.ts";
import type { ConfigChange } from "../store/control-plane-repositories.ts";
import { isoNow, uuidv4 } from "../lib/ids.ts";
import { GatewayError } from "../errors.ts";
import { storableConfig } from "../pipeline/storable-config.ts";

export function registerUpdateConfig(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(updateConfigRoute, async (c) => {
    const auth = c.get("auth");
    const { slug } = c.req.valid("param");
    const body = c.req.valid("json");
    if (Object.keys(body).length === 0) {
      throw new GatewayError("invalid_request", "The body must set at least one of: name, config, is_default.", { param: "body" });
    }
    const notFound = () => new GatewayError("not_found", `No config ${slug} in this workspace.`, { param: "slug" });
    const change: ConfigChange = { versionId: uuidv4(), updatedBy: auth.keyId, at: isoNow() };
    if (body.name !== undefined) change.name = body.name;
    if (body.config !== undefined) {
      // The version it replaces holds the keys that masked ones in the new body stand for.
      const current = await deps.store.configs.getBySlug(auth.workspaceId, slug);
      if (!current) throw notFound();
      const hasExperiment = async (experimentId: string) => (await deps.store.experiments.get(auth.workspaceId, experimentId)) !== undefined;
      change.config = await storableConfig(body.config, { ...deps, hasExperiment }, current.latest.config);
    }
    if (body.is_default !== undefined) change.isDefault = body.is_default;
    const changed = await auditedChange(c, deps.store, "config.updated", configSubject, async (tx) => {
      const before = await tx.configs.getBySlug(auth.workspaceId, slug);
      return before && { before, after: await tx.configs.update(auth.workspaceId, slug, change) };
    });
    const updated = changed?.after;
    if (!updated) throw notFound();
    deps.controlPlane.forget("config", auth.workspaceId, slug);
    deps.controlPlane.forget("default-config", auth.workspaceId, "");
    return c.json(configVersionView(updated), 200);
  });
}
