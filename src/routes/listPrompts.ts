import { listPromptsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { promptView } from "../control-plane/views.ts";

export function registerListPrompts(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(listPromptsRoute, async (c) => {
    const auth = c.get("auth");
    const prompts = await deps.store.prompts.list(auth.workspaceId);
    const data = prompts.map((prompt) => promptView(prompt));
    return c.json({ object: "list" as const, total: data.length, data }, 200);
  });
}
