import type { Ownership } from "../records/control-plane.ts";
import type { OwnedColumns } from "./schema.ts";

/** The ownership columns of a control-plane row. */
export function ownershipColumns(owner: Ownership): OwnedColumns {
  return {
    organisation_id: owner.organisationId,
    workspace_id: owner.workspaceId,
    owner_id: owner.ownerId,
    updated_by: owner.updatedBy,
  };
}

/** The ownership of a control-plane record, from its row. */
export function ownershipOf(row: OwnedColumns): Ownership {
  return {
    organisationId: row.organisation_id,
    workspaceId: row.workspace_id,
    ownerId: row.owner_id,
    updatedBy: row.updated_by,
  };
}
