import type { Kysely, Selectable } from "kysely";
import { BUDGET_PERIODS, type BudgetPeriod, type VirtualKeyRecord } from "../control-plane/records.ts";
import type { NewVirtualKey, VirtualKeyChange, VirtualKeysRepository } from "./control-plane-repositories.ts";
import type { Database, VirtualKeysTable } from "./schema.ts";
import { ownershipColumns, ownershipOf } from "./ownership-columns.ts";
import { sluggedTable } from "./slugged-table.ts";

type VirtualKeyRow = Selectable<VirtualKeysTable>;

/** The repository over `virtual_keys`. */
export function createVirtualKeysRepository(db: Kysely<Database>): VirtualKeysRepository {
  const rows = sluggedTable(db, "virtual_keys", fromRow);
  return {
    create: (key) => rows.insert(toRow(key)),
    list: rows.list,
    getBySlug: rows.getBySlug,
    update: (workspaceId, slug, change) => rows.update(workspaceId, slug, changedColumns(change)),
    delete: rows.delete,
  };
}

function toRow(key: NewVirtualKey): VirtualKeyRow {
  return {
    id: key.id,
    ...ownershipColumns(key),
    slug: key.slug,
    name: key.name,
    provider: key.provider,
    encrypted_key: key.encryptedKey,
    key_hint: key.keyHint,
    upstream_organization: key.upstreamOrganization,
    upstream_project: key.upstreamProject,
    custom_host: key.customHost,
    ...budgetColumns(key.budget),
    ...rateLimitColumns(key.rateLimit),
    created_at: key.createdAt,
    updated_at: key.createdAt,
  };
}

/** The columns a change sets: absent fields are left out, so they keep their stored value. */
function changedColumns(change: VirtualKeyChange): Partial<VirtualKeyRow> {
  return {
    updated_by: change.updatedBy,
    updated_at: change.at,
    ...(change.name !== undefined && { name: change.name }),
    ...(change.encryptedKey !== undefined && { encrypted_key: change.encryptedKey }),
    ...(change.keyHint !== undefined && { key_hint: change.keyHint }),
    ...(change.upstreamOrganization !== undefined && { upstream_organization: change.upstreamOrganization }),
    ...(change.upstreamProject !== undefined && { upstream_project: change.upstreamProject }),
    ...(change.customHost !== undefined && { custom_host: change.customHost }),
    ...(change.budget !== undefined && budgetColumns(change.budget)),
    ...(change.rateLimit !== undefined && rateLimitColumns(change.rateLimit)),
  };
}

function budgetColumns(budget: VirtualKeyRecord["budget"]): Pick<VirtualKeyRow, "budget_credit_limit_usd" | "budget_period"> {
  return { budget_credit_limit_usd: budget?.creditLimitUsd ?? null, budget_period: budget?.period ?? null };
}

function rateLimitColumns(rateLimit: VirtualKeyRecord["rateLimit"]): Pick<VirtualKeyRow, "rate_limit_rpm" | "rate_limit_tpm"> {
  return { rate_limit_rpm: rateLimit?.requestsPerMinute ?? null, rate_limit_tpm: rateLimit?.tokensPerMinute ?? null };
}

function fromRow(row: VirtualKeyRow): VirtualKeyRecord {
  const { rate_limit_rpm: rpm, rate_limit_tpm: tpm } = row;
  return {
    id: row.id,
    ...ownershipOf(row),
    slug: row.slug,
    name: row.name,
    provider: row.provider,
    encryptedKey: row.encrypted_key,
    keyHint: row.key_hint,
    upstreamOrganization: row.upstream_organization,
    upstreamProject: row.upstream_project,
    customHost: row.custom_host,
    budget:
      row.budget_credit_limit_usd === null
        ? null
        : { creditLimitUsd: row.budget_credit_limit_usd, period: budgetPeriod(row.budget_period) },
    rateLimit: rpm === null && tpm === null ? null : { requestsPerMinute: rpm, tokensPerMinute: tpm },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A period this code does not know (stored by a newer version) reads as `none`: no reset, the safer side. */
function budgetPeriod(period: string | null): BudgetPeriod {
  return isBudgetPeriod(period) ? period : "none";
}

function isBudgetPeriod(period: string | null): period is BudgetPeriod {
  return (BUDGET_PERIODS as readonly (string | null)[]).includes(period);
}
