import { deleteWebhookRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { webhookSubject } from "../audit/audit-subjects.ts";
import { GatewayError } from "../errors.ts";

export function registerDeleteWebhook(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(deleteWebhookRoute, async (c) => {
    const auth = c.get("auth");
    const { id } = c.req.valid("param");
    const deleted = await auditedChange(c, deps.store, "webhook.deleted", webhookSubject, async (tx) => {
      const before = await tx.webhooks.get(auth.workspaceId, id);
      return before && (await tx.webhooks.delete(auth.workspaceId, id)) ? { before } : undefined;
    });
    if (!deleted) throw new GatewayError("not_found", `No webhook ${id} in this workspace.`, { param: "id" });
    return c.json({ id, object: "webhook", deleted: true }, 200);
  });
}
