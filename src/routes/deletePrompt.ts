import { deletePromptRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { promptSubject } from "../audit/audit-subjects.ts";
import { GatewayError } from "../errors.ts";

export function registerDeletePrompt(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(deletePromptRoute, async (c) => {
    const auth = c.get("auth");
    const { id } = c.req.valid("param");
    const deleted = await auditedChange(c, deps.store, "prompt.deleted", promptSubject, async (tx) => {
      const before = await tx.prompts.get(auth.workspaceId, id);
      return before && (await tx.prompts.delete(auth.workspaceId, id)) ? { before } : undefined;
    });
    if (!deleted) throw new GatewayError("not_found", `No prompt ${id} in this workspace.`, { param: "id" });
    // Prompt completions read prompts through the cache: a deleted prompt stops running now.
    deps.controlPlane.forget("prompt", auth.workspaceId, id);
    return c.json({ id, object: "prompt", deleted: true }, 200);
  });
}
