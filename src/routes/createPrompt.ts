import { createPromptRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { promptSubject } from "../audit/audit-subjects.ts";
import { promptView } from "../control-plane/views.ts";
import { isoNow, uuidv4 } from "../lib/ids.ts";
import { exactlyOneTarget, promptVersion } from "../prompts/prompt-version.ts";
import type { NewPrompt } from "../store/control-plane-repositories.ts";

export function registerCreatePrompt(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(createPromptRoute, async (c) => {
    const auth = c.get("auth");
    const body = c.req.valid("json");
    const target = exactlyOneTarget(body.provider ?? null, body.virtual_key ?? null);
    // The version is checked (its virtual key looked up) before the transaction, which may use only its own handle.
    const version = await promptVersion(deps, auth.workspaceId, {
      model: body.model,
      provider: target.provider,
      virtualKey: target.virtualKey,
      messages: body.messages,
      hyperparameters: body.hyperparameters ?? {},
    });
    const prompt: NewPrompt = {
      id: uuidv4(),
      name: body.name,
      version,
      organisationId: auth.organisationId,
      workspaceId: auth.workspaceId,
      ownerId: auth.keyId,
      updatedBy: auth.keyId,
      createdAt: isoNow(),
    };
    const changed = await auditedChange(c, deps.store, "prompt.created", promptSubject, async (tx) => ({ after: await tx.prompts.create(prompt) }));
    if (!changed?.after) throw new Error("a created prompt is always returned");
    return c.json(promptView(changed.after), 201);
  });
}
