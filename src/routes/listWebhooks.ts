import { listWebhooksRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { webhookView } from "../control-plane/webhook-fields.ts";

export function registerListWebhooks(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(listWebhooksRoute, async (c) => {
    const auth = c.get("auth");
    const data = (await deps.store.webhooks.list(auth.workspaceId)).map(webhookView);
    return c.json({ object: "list" as const, total: data.length, data }, 200);
  });
}
