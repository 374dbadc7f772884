import { getPromptRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { promptView } from "../control-plane/views.ts";
import { GatewayError } from "../errors.ts";

export function registerGetPrompt(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(getPromptRoute, async (c) => {
    const auth = c.get("auth");
    const { id } = c.req.valid("param");
    const prompt = await deps.store.prompts.get(auth.workspaceId, id);
    if (!prompt) throw new GatewayError("not_found", `No prompt ${id} in this workspace.`, { param: "id" });
    return c.json(promptView(prompt), 200);
  });
}
