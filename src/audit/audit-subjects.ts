import type { ApiKeyRecord } from "../records/api-key.ts";
import { apiKeyView } from "../control-plane/api-key-view.ts";
import type { ConfigRecord, GuardrailRecord, McpServerRecord, PromptRecord, VirtualKeyRecord } from "../records/control-plane.ts";
import { analyticsDimensionsView, configVersionView, guardrailView, mcpServerView, promptView, virtualKeyView } from "../control-plane/views.ts";
import type { DeclaredDimension } from "../store/analytics-dimensions-repository.ts";
import type { AuditView } from "../records/audit-event.ts";
import type { BudgetRecord } from "../records/budget.ts";
import { budgetAuditView } from "../control-plane/budget-fields.ts";
import type { WebhookRecord } from "../records/webhook.ts";
import type { RunView } from "../runs/run-breaker.ts";
import type { ReconciliationSettingsRecord } from "../records/reconciliation.ts";
import { reconciliationSettingsView } from "../control-plane/reconciliation-fields.ts";
import { webhookView } from "../control-plane/webhook-fields.ts";
import { experimentView } from "../control-plane/experiment-view.ts";
import type { ExperimentRecord } from "../records/experiment.ts";

/**
 * What an audit event says about one resource: its ids and its view. The view is the very
 * function the API answers GET with, so a secret is masked in the log exactly as it is there
 * (a gateway key's hash never, a virtual key's key as `****hint`, config and header secrets masked).
 */
export interface AuditSubject {
  id: string;
  slug: string | null;
  workspaceId: string;
  view: AuditView;
}

export function apiKeySubject(record: ApiKeyRecord): AuditSubject {
  return { id: record.id, slug: null, workspaceId: record.workspaceId, view: apiKeyView(record) };
}

export function virtualKeySubject(record: VirtualKeyRecord): AuditSubject {
  return { id: record.id, slug: record.slug, workspaceId: record.workspaceId, view: virtualKeyView(record) };
}

export function configSubject(record: ConfigRecord): AuditSubject {
  return { id: record.id, slug: record.slug, workspaceId: record.workspaceId, view: configVersionView(record) };
}

export function promptSubject(record: PromptRecord): AuditSubject {
  return { id: record.id, slug: null, workspaceId: record.workspaceId, view: promptView(record) };
}

export function guardrailSubject(record: GuardrailRecord): AuditSubject {
  return { id: record.id, slug: record.slug, workspaceId: record.workspaceId, view: guardrailView(record) };
}

export function mcpServerSubject(record: McpServerRecord): AuditSubject {
  return { id: record.id, slug: record.label, workspaceId: record.workspaceId, view: mcpServerView(record) };
}

/** A workspace's declared analytics dimensions: one resource per workspace, named by its id. */
export function analyticsDimensionsSubject(record: { workspaceId: string; dimensions: readonly DeclaredDimension[] }): AuditSubject {
  return { id: record.workspaceId, slug: null, workspaceId: record.workspaceId, view: analyticsDimensionsView(record.dimensions) };
}

/** A budget: its fields (its use changes with every request and is no part of a change). */
export function budgetSubject(record: BudgetRecord): AuditSubject {
  return { id: record.id, slug: null, workspaceId: record.workspaceId, view: budgetAuditView(record) };
}

/** A webhook: its view, the secret masked. */
export function webhookSubject(record: WebhookRecord): AuditSubject {
  return { id: record.id, slug: null, workspaceId: record.workspaceId, view: webhookView(record) };
}

/** A run of the workspace: its counts and halt. */
export function runSubject(workspaceId: string): (view: RunView) => AuditSubject {
  return (view) => ({ id: view.trace_id, slug: null, workspaceId, view: { ...view } });
}

/** A virtual key's reconciliation settings, named by the key: the credential masked. */
export function reconciliationSubject(slug: string): (record: ReconciliationSettingsRecord) => AuditSubject {
  return (record) => ({ id: record.virtualKeyId, slug, workspaceId: record.workspaceId, view: reconciliationSettingsView(record, slug) });
}

/** An experiment: its variants, guards, status and stop reason. */
export function experimentSubject(record: ExperimentRecord): AuditSubject {
  return { id: record.id, slug: null, workspaceId: record.workspaceId, view: experimentView(record) };
}
