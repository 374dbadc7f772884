import { createGuardrailRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { guardrailSubject } from "../audit/audit-subjects.ts";
import { makeSlug } from "../control-plane/slugs.ts";
import { guardrailView } from "../control-plane/views.ts";
import { isoNow, uuidv4 } from "../lib/ids.ts";
import { validatedChecks } from "../control-plane/guardrail-checks.ts";
import { sealCheckSecrets } from "../records/guardrail-secrets.ts";
import type { NewGuardrail } from "../store/control-plane-repositories.ts";

export function registerCreateGuardrail(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(createGuardrailRoute, async (c) => {
    const auth = c.get("auth");
    const body = c.req.valid("json");
    const guardrail: NewGuardrail = {
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
    };
    const changed = await auditedChange(c, deps.store, "guardrail.created", guardrailSubject, async (tx) => ({ after: await tx.guardrails.create(guardrail) }));
    if (!changed?.after) throw new Error("a created guardrail is always returned");
    return c.json(guardrailView(changed.after), 201);
  });
}
