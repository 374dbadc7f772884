import { listAuditEventsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { targetWorkspace } from "../control-plane/api-key-view.ts";
import { auditEventView } from "../audit/audit-view.ts";
import { GatewayError } from "../errors.ts";
import { decodeCursor, encodeCursor } from "../logging/log-view.ts";

export function registerListAuditEvents(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(listAuditEventsRoute, async (c) => {
    const auth = c.get("auth");
    const query = c.req.valid("query");
    const workspaceId = targetWorkspace(auth, query.workspace_id);
    for (const [name, value] of [["from", query.from], ["to", query.to]] as const) {
      if (value !== undefined && Number.isNaN(Date.parse(value))) {
        throw new GatewayError("invalid_request", `${name} must be an ISO 8601 date-time.`, { param: name });
      }
    }
    if (query.from !== undefined && query.to !== undefined && Date.parse(query.from) >= Date.parse(query.to)) {
      throw new GatewayError("invalid_request", "from must be before to.", { param: "from" });
    }
    let before: string | undefined;
    if (query.cursor !== undefined) {
      before = decodeCursor(query.cursor) ?? undefined;
      if (!before) throw new GatewayError("invalid_request", "cursor is not a cursor this gateway issued.", { param: "cursor" });
    }
    const { records, hasMore } = await deps.store.audit.list({
      organisationId: auth.organisationId,
      workspaceId,
      action: query.action,
      resourceType: query.resource_type,
      resourceId: query.resource_id,
      actorKeyId: query.actor_key_id,
      from: query.from,
      to: query.to,
      before,
      limit: query.limit ?? 50,
    });
    const last = records.at(-1);
    return c.json(
      {
        object: "list" as const,
        data: records.map(auditEventView),
        has_more: hasMore,
        next_cursor: hasMore && last ? encodeCursor(last.id) : null,
      },
      200,
    );
  });
}
