import { createWebhookRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { webhookSubject } from "../audit/audit-subjects.ts";
import { checkedWebhookUrl, newWebhookSecret, webhookView } from "../control-plane/webhook-fields.ts";
import { sealSecret } from "../crypto/sealed-secret.ts";
import { isoNow, uuidv4 } from "../lib/ids.ts";

export function registerCreateWebhook(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(createWebhookRoute, async (c) => {
    const auth = c.get("auth");
    const body = c.req.valid("json");
    const url = await checkedWebhookUrl(body.url, deps.checkCustomHost);
    const secret = body.secret ?? newWebhookSecret();
    const changed = await auditedChange(c, deps.store, "webhook.created", webhookSubject, async (tx) => ({
      after: await tx.webhooks.create({
        id: uuidv4(),
        url,
        description: body.description ?? null,
        secret: sealSecret(secret, deps.secrets),
        events: [...new Set(body.events)],
        enabled: body.enabled ?? true,
        organisationId: auth.organisationId,
        workspaceId: auth.workspaceId,
        ownerId: auth.keyId,
        updatedBy: auth.keyId,
        createdAt: isoNow(),
      }),
    }));
    if (!changed?.after) throw new Error("a created webhook is always returned");
    // The secret in clear this once: it is sealed at rest and masked everywhere else.
    return c.json({ ...webhookView(changed.after), secret }, 201);
  });
}
