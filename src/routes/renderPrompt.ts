import { renderPromptRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { renderPromptRequest } from "../prompts/prompt-request.ts";

export function registerRenderPrompt(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(renderPromptRoute, async (c) => {
    const { id } = c.req.valid("param");
    const { version, label } = c.req.valid("query");
    const rendered = await renderPromptRequest(id, { version, label }, c.req.valid("json"), c.get("auth").workspaceId, deps);
    if (!rendered.ok) throw rendered.error;
    return c.json({ object: "prompt.render" as const, prompt_id: id, version: rendered.value.version.versionNumber, request: rendered.value.body }, 200);
  });
}
