import { publishPromptVersionRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { PRODUCTION_LABEL } from "../records/control-plane.ts";
import { moveLabel } from "./prompts/move-label.ts";

/** Publishing is moving the `production` label, audited as `prompt.published`. */
export function registerPublishPromptVersion(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(publishPromptVersionRoute, async (c) => {
    const { id } = c.req.valid("param");
    const { version } = c.req.valid("json");
    return c.json(await moveLabel(c, deps, { promptId: id, label: PRODUCTION_LABEL, version, action: "prompt.published", missingVersion: "not_found" }), 200);
  });
}
