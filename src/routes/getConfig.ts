import { getConfigRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { configVersionView } from "../control-plane/views.ts";
import { GatewayError } from "../errors.ts";

export function registerGetConfig(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(getConfigRoute, async (c) => {
    const auth = c.get("auth");
    const { slug } = c.req.valid("param");
    const config = await deps.store.configs.getBySlug(auth.workspaceId, slug);
    if (!config) throw new GatewayError("not_found", `No config ${slug} in this workspace.`, { param: "slug" });
    return c.json(configVersionView(config), 200);
  });
}
