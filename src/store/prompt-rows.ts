import type { Selectable } from "kysely";
import type { PromptMessage, PromptRecord, PromptVersionRecord } from "../records/control-plane.ts";
import type { NewPromptVersion } from "./control-plane-repositories.ts";
import type { PromptLabelsTable, PromptsTable, PromptVersionsTable } from "./schema.ts";
import { ownershipOf } from "./ownership-columns.ts";

export type PromptRow = Selectable<PromptsTable>;
export type PromptVersionRow = Selectable<PromptVersionsTable>;
export type PromptLabelRow = Pick<Selectable<PromptLabelsTable>, "prompt_id" | "label" | "version_number">;

/** Who a version belongs to and who wrote it: copied from its prompt, plus the author. */
export interface VersionOrigin {
  prompt: Pick<PromptRow, "id" | "organisation_id" | "workspace_id" | "owner_id">;
  versionNumber: number;
  createdBy: string | null;
  at: string;
}

/** The `prompt_versions` row of a new version; messages, hyperparameters and variables as JSON text. */
export function toVersionRow(version: NewPromptVersion, origin: VersionOrigin): PromptVersionRow {
  return {
    version_id: version.versionId,
    prompt_id: origin.prompt.id,
    organisation_id: origin.prompt.organisation_id,
    workspace_id: origin.prompt.workspace_id,
    owner_id: origin.prompt.owner_id,
    updated_by: origin.createdBy,
    version_number: origin.versionNumber,
    model: version.model,
    provider: version.provider,
    virtual_key: version.virtualKey,
    messages: JSON.stringify(version.messages),
    hyperparameters: JSON.stringify(version.hyperparameters),
    variables: JSON.stringify(version.variables),
    created_at: origin.at,
    created_by: origin.createdBy,
  };
}

/** The record of a prompt; `versions` must already be newest first. */
export function fromPromptRows(row: PromptRow, versions: readonly PromptVersionRow[], labels: readonly PromptLabelRow[]): PromptRecord {
  // Sorted by name, so a view (and an audit event's before and after) lists them alike.
  const named = [...labels].sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
  return {
    id: row.id,
    ...ownershipOf(row),
    name: row.name,
    defaultVersion: row.default_version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    versions: versions.map(fromVersionRow),
    labels: Object.fromEntries(named.map((label) => [label.label, label.version_number])),
  };
}

export function fromVersionRow(row: PromptVersionRow): PromptVersionRecord {
  const messages: PromptMessage[] = JSON.parse(row.messages);
  const hyperparameters: Record<string, unknown> = JSON.parse(row.hyperparameters);
  const variables: string[] = JSON.parse(row.variables);
  return {
    versionId: row.version_id,
    promptId: row.prompt_id,
    versionNumber: row.version_number,
    model: row.model,
    provider: row.provider,
    virtualKey: row.virtual_key,
    messages,
    hyperparameters,
    variables,
    createdAt: row.created_at,
    createdBy: row.created_by,
  };
}
