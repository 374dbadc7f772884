import { createConfigRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { configSubject } from "../audit/audit-subjects.ts";
import { makeSlug } from "../control-plane/slugs.ts";
import { isoNow, uuidv4 } from "../lib/ids.ts";
import { storableConfig } from "../pipeline/storable-config.ts";
import type { NewConfig } from "../store/control-plane-repositories.ts";

export function registerCreateConfig(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(createConfigRoute, async (c) => {
    const auth = c.get("auth");
    const body = c.req.valid("json");
    const hasExperiment = async (id: string) => (await deps.store.experiments.get(auth.workspaceId, id)) !== undefined;
    const config = await storableConfig(body.config, { ...deps, hasExperiment });
    const newConfig: NewConfig = {
      id: uuidv4(),
      slug: makeSlug("pc", body.name),
      name: body.name,
      isDefault: body.is_default ?? false,
      config,
      versionId: uuidv4(),
      organisationId: auth.organisationId,
      workspaceId: auth.workspaceId,
      ownerId: auth.keyId,
      updatedBy: auth.keyId,
      createdAt: isoNow(),
    };
    const changed = await auditedChange(c, deps.store, "config.created", configSubject, async (tx) => ({ after: await tx.configs.create(newConfig) }));
    const created = changed?.after;
    if (!created) throw new Error("a created config is always returned");
    // A cached "no default config" (or the previous default) is stale once a default is made.
    if (created.isDefault) deps.controlPlane.forget("default-config", auth.workspaceId, "");
    return c.json({ id: created.id, slug: created.slug, version_id: created.latest.versionId }, 201);
  });
}
