import { getRunRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { GatewayError } from "../errors.ts";

export function registerGetRun(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(getRunRoute, async (c) => {
    const auth = c.get("auth");
    const { trace_id: traceId } = c.req.valid("param");
    const run = await deps.runs.state({ workspaceId: auth.workspaceId, traceId });
    if (!run) throw new GatewayError("not_found", `No run ${traceId.slice(0, 128)} is counted in this workspace.`, { param: "trace_id" });
    return c.json(run, 200);
  });
}
