import { listWebhookDeliveriesRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { deliveryView } from "../control-plane/webhook-fields.ts";
import { GatewayError } from "../errors.ts";

export function registerListWebhookDeliveries(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(listWebhookDeliveriesRoute, async (c) => {
    const auth = c.get("auth");
    const { id } = c.req.valid("param");
    const query = c.req.valid("query");
    const webhook = await deps.store.webhooks.get(auth.workspaceId, id);
    if (!webhook) throw new GatewayError("not_found", `No webhook ${id} in this workspace.`, { param: "id" });
    const limit = query.limit ?? 50;
    // One more than the page: whether there is a next one.
    const rows = await deps.store.webhooks.deliveries(auth.workspaceId, id, { limit: limit + 1, before: query.before, status: query.status });
    return c.json({ object: "list" as const, data: rows.slice(0, limit).map(deliveryView), has_more: rows.length > limit }, 200);
  });
}
