import type { Context } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import { uuidv7, isoNow } from "../lib/ids.ts";
import type { ControlPlaneStore, Store } from "../store/open-store.ts";
import { resourceTypeOf, type AuditAction, type AuditEventRecord } from "../records/audit-event.ts";
import type { AuditSubject } from "./audit-subjects.ts";

/** A change's resource before and after it: undefined before a creation, after a deletion. */
export interface Change<R> {
  before?: R | undefined;
  after?: R | undefined;
}

/** The caller's own request id, kept so an event can be matched with the caller's records. */
const REQUEST_ID_HEADERS = ["x-gateway-trace-id", "x-request-id"] as const;
const MAX_REQUEST_ID_LENGTH = 200;

/**
 * Runs `change` and records its audit event in one transaction: the change never lands without
 * its event, and a change that throws leaves neither. `change` answers undefined when it finds
 * nothing to change (the route's 404): no event then; nor when the views before and after are
 * equal (a write that changed nothing). Inside `change` use only `tx` (see `Store.transaction`).
 */
export function auditedChange<R>(
  c: Context<GatewayEnv>,
  store: Store,
  action: AuditAction,
  subject: (record: R) => AuditSubject,
  change: (tx: ControlPlaneStore) => Promise<Change<R> | undefined>,
): Promise<Change<R> | undefined> {
  return store.transaction(async (tx) => {
    const result = await change(tx);
    if (!result) return undefined;
    const before = result.before === undefined ? undefined : subject(result.before);
    const after = result.after === undefined ? undefined : subject(result.after);
    const about = after ?? before;
    if (!about) return result;
    if (before && after && JSON.stringify(before.view) === JSON.stringify(after.view)) return result;
    await tx.audit.insert(auditEvent(c, action, about, before, after));
    return result;
  });
}

function auditEvent(
  c: Context<GatewayEnv>,
  action: AuditAction,
  about: AuditSubject,
  before: AuditSubject | undefined,
  after: AuditSubject | undefined,
): AuditEventRecord {
  const auth = c.get("auth");
  // One instant for both, so the id's order and `created_at` agree.
  const now = Date.now();
  return {
    id: uuidv7(now),
    organisationId: auth.organisationId,
    workspaceId: about.workspaceId,
    actorKeyId: auth.keyId,
    action,
    resourceType: resourceTypeOf(action),
    resourceId: about.id,
    resourceSlug: about.slug,
    before: before?.view ?? null,
    after: after?.view ?? null,
    requestId: requestIdOf(c),
    createdAt: isoNow(now),
  };
}

function requestIdOf(c: Context<GatewayEnv>): string | null {
  for (const name of REQUEST_ID_HEADERS) {
    const value = c.req.header(name);
    if (value) return value.slice(0, MAX_REQUEST_ID_LENGTH);
  }
  return null;
}
