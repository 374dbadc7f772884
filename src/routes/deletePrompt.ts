import { deletePromptRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { GatewayError } from "../errors.ts";

export function registerDeletePrompt(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(deletePromptRoute, async (c) => {
    const auth = c.get("auth");
    const { id } = c.req.valid("param");
    const deleted = await deps.store.prompts.delete(auth.workspaceId, id);
    if (!deleted) throw new GatewayError("not_found", `No prompt ${id} in this workspace.`, { param: "id" });
    // Prompt completions read prompts through the cache: a deleted prompt stops running now.
    deps.controlPlane.forget("prompt", auth.workspaceId, id);
    return c.json({ id, object: "prompt", deleted: true }, 200);
  });
}
