import { createPromptRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { promptView } from "../control-plane/views.ts";
import { isoNow, uuidv4 } from "../core/ids.ts";
import { exactlyOneTarget, promptVersion } from "../control-plane/prompt-version.ts";

export function registerCreatePrompt(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(createPromptRoute, async (c) => {
    const auth = c.get("auth");
    const body = c.req.valid("json");
    const target = exactlyOneTarget(body.provider ?? null, body.virtual_key ?? null);
    const created = await deps.store.prompts.create({
      id: uuidv4(),
      name: body.name,
      version: await promptVersion(deps, auth.workspaceId, {
        model: body.model,
        provider: target.provider,
        virtualKey: target.virtualKey,
        messages: body.messages,
        hyperparameters: body.hyperparameters ?? {},
      }),
      organisationId: auth.organisationId,
      workspaceId: auth.workspaceId,
      ownerId: auth.keyId,
      updatedBy: auth.keyId,
      createdAt: isoNow(),
    });
    return c.json(promptView(created), 201);
  });
}
