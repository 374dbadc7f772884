import { movePromptLabelRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { PRODUCTION_LABEL } from "../records/control-plane.ts";
import { moveLabel } from "./prompts/move-label.ts";

export function registerMovePromptLabel(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(movePromptLabelRoute, async (c) => {
    const { id, label } = c.req.valid("param");
    const { version } = c.req.valid("json");
    const action = label === PRODUCTION_LABEL ? "prompt.published" : "prompt.label_moved";
    return c.json(await moveLabel(c, deps, { promptId: id, label, version, action }), 200);
  });
}
