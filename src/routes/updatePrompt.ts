import { updatePromptRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { promptSubject } from "../audit/audit-subjects.ts";
import { defaultVersionOf, promptVersionView } from "../control-plane/views.ts";
import { isoNow } from "../lib/ids.ts";
import { GatewayError } from "../errors.ts";
import { exactlyOneTarget, promptVersion } from "../prompts/prompt-version.ts";

const CHANGES = ["name", "model", "provider", "virtual_key", "messages", "hyperparameters"] as const;

/**
 * A new version: the default version's fields, overridden by the body (`null` clears provider
 * or virtual_key; the result still needs exactly one). `publish: true` makes it the default.
 */
export function registerUpdatePrompt(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(updatePromptRoute, async (c) => {
    const auth = c.get("auth");
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    if (!CHANGES.some((field) => body[field] !== undefined)) {
      throw new GatewayError("invalid_request", `The body must set at least one of: ${CHANGES.join(", ")}.`, { param: "body" });
    }
    const prompt = await deps.store.prompts.get(auth.workspaceId, id);
    if (!prompt) throw new GatewayError("not_found", `No prompt ${id} in this workspace.`, { param: "id" });
    const base = defaultVersionOf(prompt);
    const target = exactlyOneTarget(
      body.provider === undefined ? base.provider : body.provider,
      body.virtual_key === undefined ? base.virtualKey : body.virtual_key,
    );
    const version = await promptVersion(
      deps,
      auth.workspaceId,
      {
        model: body.model ?? base.model,
        provider: target.provider,
        virtualKey: target.virtualKey,
        messages: body.messages ?? base.messages,
        hyperparameters: body.hyperparameters ?? base.hyperparameters,
      },
      { provider: body.provider != null, virtualKey: body.virtual_key != null },
    );
    const changed = await auditedChange(c, deps.store, "prompt.updated", promptSubject, async (tx) => {
      const before = await tx.prompts.get(auth.workspaceId, id);
      if (!before) return undefined;
      const after = await tx.prompts.addVersion(auth.workspaceId, id, {
        version,
        ...(body.name !== undefined ? { name: body.name } : {}),
        publish: body.publish ?? false,
        updatedBy: auth.keyId,
        at: isoNow(),
      });
      return { before, after };
    });
    const updated = changed?.after;
    const added = updated?.versions.find((candidate) => candidate.versionId === version.versionId);
    if (!updated || !added) throw new GatewayError("not_found", `No prompt ${id} in this workspace.`, { param: "id" });
    deps.controlPlane.forget("prompt", auth.workspaceId, id);
    return c.json(promptVersionView(updated, added), 200);
  });
}
