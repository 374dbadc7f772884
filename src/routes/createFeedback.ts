import { createFeedbackRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { isoNow, uuidv7 } from "../lib/ids.ts";
import { feedbackMetadataError, feedbackView } from "../feedback/feedback.ts";

export function registerCreateFeedback(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(createFeedbackRoute, async (c) => {
    const auth = c.get("auth");
    const body = c.req.valid("json");
    const metadata = body.metadata ?? {};
    const error = feedbackMetadataError(metadata);
    if (error) throw error;
    const created = await deps.store.feedback.create({
      id: uuidv7(),
      organisationId: auth.organisationId,
      workspaceId: auth.workspaceId,
      ownerId: auth.keyId,
      updatedBy: auth.keyId,
      traceId: body.trace_id,
      value: body.value,
      weight: body.weight ?? 1,
      metadata,
      createdAt: isoNow(),
    });
    return c.json(feedbackView(created), 201);
  });
}
