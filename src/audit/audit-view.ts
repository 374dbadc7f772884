import type { AuditEvent } from "../generated/schemas.gen.ts";
import type { AuditEventRecord } from "../records/audit-event.ts";

/** The public shape of an event. Its views were masked when it was recorded; nothing else is secret. */
export function auditEventView(event: AuditEventRecord): AuditEvent {
  return {
    id: event.id,
    object: "audit_event",
    organisation_id: event.organisationId,
    workspace_id: event.workspaceId,
    actor_key_id: event.actorKeyId,
    action: event.action,
    resource_type: event.resourceType,
    resource_id: event.resourceId,
    resource_slug: event.resourceSlug,
    before: event.before === null ? null : { ...event.before },
    after: event.after === null ? null : { ...event.after },
    request_id: event.requestId,
    created_at: event.createdAt,
  };
}
