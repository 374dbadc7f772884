import { getWebhookRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { webhookView } from "../control-plane/webhook-fields.ts";
import { GatewayError } from "../errors.ts";

export function registerGetWebhook(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(getWebhookRoute, async (c) => {
    const auth = c.get("auth");
    const { id } = c.req.valid("param");
    const webhook = await deps.store.webhooks.get(auth.workspaceId, id);
    if (!webhook) throw new GatewayError("not_found", `No webhook ${id} in this workspace.`, { param: "id" });
    return c.json(webhookView(webhook), 200);
  });
}
