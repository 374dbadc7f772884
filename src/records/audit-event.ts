import { AuditActionSchema, AuditResourceTypeSchema } from "../generated/schemas.gen.ts";

/** The kinds of control-plane object an audit event is about, as the document lists them. */
export const AUDIT_RESOURCE_TYPES = AuditResourceTypeSchema.unwrap().options;
export type AuditResourceType = (typeof AUDIT_RESOURCE_TYPES)[number];

/**
 * Every action the audit log records, `<resource type>.<verb>`, as the document lists them.
 * Revoking a gateway key keeps its row (its logs and spend still name it), so it is
 * `api_key.revoked`, not `.deleted`.
 */
export const AUDIT_ACTIONS = AuditActionSchema.unwrap().options;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** A JSON object: the masked API view of a resource. */
export type AuditView = { readonly [key: string]: unknown };

/**
 * One recorded control-plane write. `before` and `after` are the views the API answers with
 * (secrets masked exactly as a GET shows them): null before a creation and after a deletion.
 */
export interface AuditEventRecord {
  /** UUIDv7: events sort by time, and the id is the page cursor. */
  id: string;
  organisationId: string;
  workspaceId: string;
  /** The gateway key that made the change; `OPERATOR_KEY_ID` for `GATEWAY_ADMIN_KEY`. */
  actorKeyId: string;
  action: AuditAction;
  resourceType: AuditResourceType;
  resourceId: string;
  resourceSlug: string | null;
  before: AuditView | null;
  after: AuditView | null;
  /** The caller's `x-gateway-trace-id` or `x-request-id`, when it sent one. */
  requestId: string | null;
  createdAt: string;
}

/** The resource type an action is about: the part before the dot. */
export function resourceTypeOf(action: AuditAction): AuditResourceType {
  return action.slice(0, action.indexOf(".")) as AuditResourceType;
}
