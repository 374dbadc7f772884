import { listConfigVersionsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { configVersionView } from "../control-plane/views.ts";
import { GatewayError } from "../errors.ts";

export function registerListConfigVersions(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(listConfigVersionsRoute, async (c) => {
    const auth = c.get("auth");
    const { slug } = c.req.valid("param");
    const config = await deps.store.configs.getBySlug(auth.workspaceId, slug);
    // Deleted between the two reads: still not found.
    const versions = config && (await deps.store.configs.listVersions(auth.workspaceId, slug));
    if (!config || !versions) throw new GatewayError("not_found", `No config ${slug} in this workspace.`, { param: "slug" });
    const data = versions.map((version) => configVersionView(config, version));
    return c.json({ object: "list" as const, total: data.length, data }, 200);
  });
}
