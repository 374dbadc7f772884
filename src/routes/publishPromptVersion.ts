import { publishPromptVersionRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { promptView } from "../control-plane/views.ts";
import { isoNow } from "../core/ids.ts";
import { GatewayError } from "../errors.ts";

export function registerPublishPromptVersion(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(publishPromptVersionRoute, async (c) => {
    const auth = c.get("auth");
    const { id } = c.req.valid("param");
    const { version } = c.req.valid("json");
    const prompt = await deps.store.prompts.get(auth.workspaceId, id);
    if (!prompt) throw new GatewayError("not_found", `No prompt ${id} in this workspace.`, { param: "id" });
    if (!prompt.versions.some((candidate) => candidate.versionNumber === version)) {
      throw new GatewayError("not_found", `Prompt ${id} has no version ${version}.`, { param: "version" });
    }
    const published = await deps.store.prompts.publish(auth.workspaceId, id, version, auth.keyId, isoNow());
    if (!published) throw new GatewayError("not_found", `No prompt ${id} in this workspace.`, { param: "id" });
    deps.controlPlane.forget("prompt", auth.workspaceId, id);
    return c.json(promptView(published), 200);
  });
}
