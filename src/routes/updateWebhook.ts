import { updateWebhookRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { webhookSubject } from "../audit/audit-subjects.ts";
import { checkedWebhookUrl, webhookView } from "../control-plane/webhook-fields.ts";
import { sealSecret } from "../crypto/sealed-secret.ts";
import { GatewayError } from "../errors.ts";
import { isoNow } from "../lib/ids.ts";
import type { WebhookChange } from "../store/webhooks-repository.ts";

export function registerUpdateWebhook(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(updateWebhookRoute, async (c) => {
    const auth = c.get("auth");
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const change: WebhookChange = { updatedBy: auth.keyId, at: isoNow() };
    if (body.url !== undefined) change.url = await checkedWebhookUrl(body.url, deps.checkCustomHost);
    if (body.events !== undefined) change.events = [...new Set(body.events)];
    if (body.description !== undefined) change.description = body.description;
    if (body.secret !== undefined) change.secret = sealSecret(body.secret, deps.secrets);
    if (body.enabled !== undefined) change.enabled = body.enabled;
    const changed = await auditedChange(c, deps.store, "webhook.updated", webhookSubject, async (tx) => {
      const before = await tx.webhooks.get(auth.workspaceId, id);
      return before && { before, after: await tx.webhooks.update(auth.workspaceId, id, change) };
    });
    if (!changed?.after) throw new GatewayError("not_found", `No webhook ${id} in this workspace.`, { param: "id" });
    return c.json(webhookView(changed.after), 200);
  });
}
