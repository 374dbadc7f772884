import { getGuardrailRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { guardrailView } from "../control-plane/views.ts";
import { GatewayError } from "../errors.ts";

export function registerGetGuardrail(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(getGuardrailRoute, async (c) => {
    const auth = c.get("auth");
    const { slug } = c.req.valid("param");
    const guardrail = await deps.store.guardrails.getBySlug(auth.workspaceId, slug);
    if (!guardrail) throw new GatewayError("not_found", `No guardrail ${slug} in this workspace.`, { param: "slug" });
    return c.json(guardrailView(guardrail), 200);
  });
}
