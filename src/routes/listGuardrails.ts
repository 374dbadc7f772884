import { listGuardrailsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { guardrailView } from "../control-plane/views.ts";

export function registerListGuardrails(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(listGuardrailsRoute, async (c) => {
    const auth = c.get("auth");
    const guardrails = await deps.store.guardrails.list(auth.workspaceId);
    const data = guardrails.map((guardrail) => guardrailView(guardrail));
    return c.json({ object: "list" as const, total: data.length, data }, 200);
  });
}
