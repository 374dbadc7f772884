import { publishPromptVersionRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { promptSubject } from "../audit/audit-subjects.ts";
import { promptView } from "../control-plane/views.ts";
import { isoNow } from "../lib/ids.ts";
import { GatewayError } from "../errors.ts";
import { validateTemplate } from "../prompts/template.ts";

export function registerPublishPromptVersion(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(publishPromptVersionRoute, async (c) => {
    const auth = c.get("auth");
    const { id } = c.req.valid("param");
    const { version } = c.req.valid("json");
    const prompt = await deps.store.prompts.get(auth.workspaceId, id);
    if (!prompt) throw new GatewayError("not_found", `No prompt ${id} in this workspace.`, { param: "id" });
    const chosen = prompt.versions.find((candidate) => candidate.versionNumber === version);
    if (!chosen) throw new GatewayError("not_found", `Prompt ${id} has no version ${version}.`, { param: "version" });
    // A version stored before a template limit existed is never made the default.
    const valid = validateTemplate(chosen.messages);
    if (!valid.ok) throw new GatewayError("invalid_request", `Version ${version} cannot be published: ${valid.error.message}`, { param: "version" });
    const changed = await auditedChange(c, deps.store, "prompt.published", promptSubject, async (tx) => {
      const before = await tx.prompts.get(auth.workspaceId, id);
      return before && { before, after: await tx.prompts.publish(auth.workspaceId, id, version, auth.keyId, isoNow()) };
    });
    const published = changed?.after;
    if (!published) throw new GatewayError("not_found", `No prompt ${id} in this workspace.`, { param: "id" });
    deps.controlPlane.forget("prompt", auth.workspaceId, id);
    return c.json(promptView(published), 200);
  });
}
