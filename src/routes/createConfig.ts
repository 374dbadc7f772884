import { createConfigRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { parseGatewayConfig } from "../control-plane/config-body.ts";
import { sealConfigSecrets } from "../control-plane/config-secrets.ts";
import { makeSlug } from "../control-plane/slugs.ts";
import { isoNow, uuidv4 } from "../core/ids.ts";
import { GatewayError } from "../errors.ts";
import { findProvider } from "../providers/catalogue.ts";
import { allowedCustomHost } from "./createVirtualKey.ts";

export function registerCreateConfig(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(createConfigRoute, async (c) => {
    const auth = c.get("auth");
    const body = c.req.valid("json");
    const config = await storableConfig(body.config, deps);
    const created = await deps.store.configs.create({
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
    });
    // A cached "no default config" (or the previous default) is stale once a default is made.
    if (created.isDefault) deps.controlPlane.forget("default-config", auth.workspaceId, "");
    return c.json({ id: created.id, slug: created.slug, version_id: created.latest.versionId }, 201);
  });
}

/**
 * A config body (object or JSON text) as it is stored: validated, its providers in the
 * catalogue and its custom hosts allowed by the SSRF guard (at the root and in every target),
 * its upstream keys sealed. Throws a 400 GatewayError naming the field (`config.targets.0.provider`).
 */
export async function storableConfig(input: unknown, deps: Pick<GatewayDeps, "checkCustomHost" | "secrets">): Promise<string> {
  const parsed = parseGatewayConfig(input, "config");
  if (!parsed.ok) throw parsed.error;
  const config = parsed.value.value;
  const parts = [{ part: config, param: "config" }, ...(config.targets ?? []).map((part, index) => ({ part, param: `config.targets.${index}` }))];
  for (const { part, param } of parts) {
    if (part.provider !== undefined && !findProvider(part.provider)) {
      throw new GatewayError("unknown_provider", `Unknown provider "${part.provider.slice(0, 100)}".`, { param: `${param}.provider` });
    }
    if (part.custom_host !== undefined) await allowedCustomHost(part.custom_host, `${param}.custom_host`, deps);
  }
  return JSON.stringify(sealConfigSecrets(config, deps.secrets));
}
