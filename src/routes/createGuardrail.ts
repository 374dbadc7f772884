import { createGuardrailRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { makeSlug } from "../control-plane/slugs.ts";
import { guardrailView } from "../control-plane/views.ts";
import { isoNow, uuidv4 } from "../core/ids.ts";
import { validatedChecks } from "../control-plane/guardrail-checks.ts";
import { sealCheckSecrets } from "../control-plane/guardrail-secrets.ts";

export function registerCreateGuardrail(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(createGuardrailRoute, async (c) => {
    const auth = c.get("auth");
    const body = c.req.valid("json");
    const created = await deps.store.guardrails.create({
      id: uuidv4(),
      slug: makeSlug("pg", body.name),
      name: body.name,
      checks: sealCheckSecrets(await validatedChecks(body.checks, deps), deps.secrets),
      action: body.action ?? { deny: false },
      organisationId: auth.organisationId,
      workspaceId: auth.workspaceId,
      ownerId: auth.keyId,
      updatedBy: auth.keyId,
      createdAt: isoNow(),
    });
    return c.json(guardrailView(created), 201);
  });
}
