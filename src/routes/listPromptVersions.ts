import { listPromptVersionsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { promptVersionView } from "../control-plane/views.ts";
import { GatewayError } from "../errors.ts";

export function registerListPromptVersions(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(listPromptVersionsRoute, async (c) => {
    const auth = c.get("auth");
    const { id } = c.req.valid("param");
    const prompt = await deps.store.prompts.get(auth.workspaceId, id);
    if (!prompt) throw new GatewayError("not_found", `No prompt ${id} in this workspace.`, { param: "id" });
    // The repository keeps versions newest first.
    const data = prompt.versions.map((version) => promptVersionView(prompt, version));
    return c.json({ object: "list" as const, total: data.length, data }, 200);
  });
}
