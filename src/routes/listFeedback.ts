import { listFeedbackRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { feedbackView } from "../feedback/feedback.ts";

export function registerListFeedback(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(listFeedbackRoute, async (c) => {
    const { trace_id: traceId } = c.req.valid("query");
    const records = await deps.store.feedback.listByTrace(c.get("auth").workspaceId, traceId);
    return c.json({ object: "list" as const, data: records.map(feedbackView) }, 200);
  });
}
