import { diffPromptVersionsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { GatewayError } from "../errors.ts";
import { promptDiff } from "../prompts/prompt-diff.ts";

export function registerDiffPromptVersions(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(diffPromptVersionsRoute, async (c) => {
    const auth = c.get("auth");
    const { id, from, to } = c.req.valid("param");
    const prompt = await deps.store.prompts.get(auth.workspaceId, id);
    if (!prompt) throw new GatewayError("not_found", `No prompt ${id} in this workspace.`, { param: "id" });
    const versionOf = (number: number, param: string) => {
      const version = prompt.versions.find((candidate) => candidate.versionNumber === number);
      if (!version) throw new GatewayError("not_found", `Prompt ${id} has no version ${number}.`, { param });
      return version;
    };
    return c.json(promptDiff(id, versionOf(from, "from"), versionOf(to, "to")), 200);
  });
}
