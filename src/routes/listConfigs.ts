import { listConfigsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { configVersionView } from "../control-plane/views.ts";

export function registerListConfigs(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(listConfigsRoute, async (c) => {
    const auth = c.get("auth");
    const configs = await deps.store.configs.list(auth.workspaceId);
    const data = configs.map((config) => configVersionView(config));
    return c.json({ object: "list" as const, total: data.length, data }, 200);
  });
}
