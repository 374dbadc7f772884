import { updateGuardrailRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { guardrailSubject } from "../audit/audit-subjects.ts";
import { guardrailView } from "../control-plane/views.ts";
import { isoNow } from "../lib/ids.ts";
import { GatewayError } from "../errors.ts";
import type { GuardrailChange } from "../store/control-plane-repositories.ts";
import { validatedChecks } from "../control-plane/guardrail-checks.ts";
import { sealCheckSecrets } from "../records/guardrail-secrets.ts";

export function registerUpdateGuardrail(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(updateGuardrailRoute, async (c) => {
    const auth = c.get("auth");
    const { slug } = c.req.valid("param");
    const body = c.req.valid("json");
    if (body.name === undefined && body.checks === undefined && body.action === undefined) {
      throw new GatewayError("invalid_request", "The body must set at least one of: name, checks, action.", { param: "body" });
    }
    const notFound = () => new GatewayError("not_found", `No guardrail ${slug} in this workspace.`, { param: "slug" });
    const change: GuardrailChange = { updatedBy: auth.keyId, at: isoNow() };
    if (body.name !== undefined) change.name = body.name;
    if (body.checks !== undefined) {
      const checks = await validatedChecks(body.checks, deps);
      // The stored checks hold the header values that masked ones in the new body stand for.
      const current = await deps.store.guardrails.getBySlug(auth.workspaceId, slug);
      if (!current) throw notFound();
      change.checks = sealCheckSecrets(checks, deps.secrets, current.checks);
    }
    if (body.action !== undefined) change.action = body.action;
    const changed = await auditedChange(c, deps.store, "guardrail.updated", guardrailSubject, async (tx) => {
      const before = await tx.guardrails.getBySlug(auth.workspaceId, slug);
      return before && { before, after: await tx.guardrails.update(auth.workspaceId, slug, change) };
    });
    const updated = changed?.after;
    if (!updated) throw notFound();
    // Requests read guardrails through the cache: the change applies to the next request.
    deps.controlPlane.forget("guardrail", auth.workspaceId, slug);
    return c.json(guardrailView(updated), 200);
  });
}
