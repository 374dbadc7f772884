import { getLogRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { GatewayError } from "../errors.ts";
import { logRecordView } from "../logging/log-view.ts";

export function registerGetLog(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(getLogRoute, async (c) => {
    const { id } = c.req.valid("param");
    const record = await deps.store.logs.get(id, c.get("auth").workspaceId);
    if (!record) throw new GatewayError("not_found", `No log ${id} in this workspace.`, { param: "id" });
    return c.json(logRecordView(record), 200);
  });
}
