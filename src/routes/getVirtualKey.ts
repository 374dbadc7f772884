import { getVirtualKeyRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { virtualKeyView } from "../control-plane/views.ts";
import { GatewayError } from "../errors.ts";

export function registerGetVirtualKey(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(getVirtualKeyRoute, async (c) => {
    const auth = c.get("auth");
    const { slug } = c.req.valid("param");
    const record = await deps.store.virtualKeys.getBySlug(auth.workspaceId, slug);
    if (!record) throw new GatewayError("not_found", `No virtual key ${slug} in this workspace.`, { param: "slug" });
    return c.json({ ...virtualKeyView(record), ...(await deps.spend.keyStatus(auth.workspaceId, "virtual_key", record.id)) }, 200);
  });
}
