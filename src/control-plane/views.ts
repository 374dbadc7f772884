import { credentialFieldsView } from "./credential-fields.ts";
import type { DeclaredDimension } from "../store/analytics-dimensions-repository.ts";
import { MAX_VALUES_PER_PERIOD } from "../store/log-rollup-bound.ts";
import type {
  AnalyticsDimensions,
  ConfigVersion,
  Guardrail,
  McpServer,
  Prompt,
  PromptVersion,
  VirtualKey,
} from "../generated/schemas.gen.ts";
import type {
  ConfigRecord,
  ConfigVersionRecord,
  GuardrailRecord,
  McpServerRecord,
  PromptRecord,
  PromptVersionRecord,
  VirtualKeyRecord,
} from "../records/control-plane.ts";
import { OPERATOR_KEY_ID } from "./auth-context.ts";
import { maskConfigSecrets } from "../records/config-secrets.ts";
import { maskCheckSecrets } from "../records/guardrail-secrets.ts";
import { maskedHeaders } from "./mcp-server-secrets.ts";
import { MASKED_SECRET } from "../crypto/sealed-secret.ts";
import { budgetView, rateLimitView } from "./virtual-key-fields.ts";

/** Records keep null for "no key"; the API always shows a UUID (the operator's for GATEWAY_ADMIN_KEY). */
/** A key id as views show it: the operator key for a write made with `GATEWAY_ADMIN_KEY`. */
export const keyIdOf = (id: string | null): string => id ?? OPERATOR_KEY_ID;

/** One config version in the exact form of the specification's version record. */
export function configVersionView(config: ConfigRecord, version: ConfigVersionRecord = config.latest): ConfigVersion {
  return {
    id: config.id,
    name: version.name,
    workspace_id: config.workspaceId,
    slug: config.slug,
    organisation_id: config.organisationId,
    is_default: config.isDefault ? 1 : 0,
    status: config.status,
    owner_id: keyIdOf(config.ownerId),
    updated_by: keyIdOf(version.updatedBy),
    created_at: config.createdAt,
    last_updated_at: version.createdAt,
    config: maskConfigSecrets(version.config),
    format: "json",
    type: "ORG_CONFIG",
    version_id: version.versionId,
    object: "config",
  };
}

export function virtualKeyView(record: VirtualKeyRecord): VirtualKey {
  return {
    id: record.id,
    object: "virtual_key",
    slug: record.slug,
    name: record.name,
    provider: record.provider,
    masked_key: `****${record.keyHint}`,
    fields: credentialFieldsView(record.fields),
    upstream_organization: record.upstreamOrganization,
    upstream_project: record.upstreamProject,
    custom_host: record.customHost,
    budget: budgetView(record.budget),
    rate_limit: rateLimitView(record.rateLimit),
    organisation_id: record.organisationId,
    workspace_id: record.workspaceId,
    owner_id: keyIdOf(record.ownerId),
    updated_by: keyIdOf(record.updatedBy),
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}

/** The version a prompt runs by default. */
export function defaultVersionOf(prompt: PromptRecord): PromptVersionRecord {
  const version = prompt.versions.find((candidate) => candidate.versionNumber === prompt.defaultVersion) ?? prompt.versions[0];
  if (!version) throw new Error(`Prompt ${prompt.id} has no versions`);
  return version;
}

export function promptView(prompt: PromptRecord): Prompt {
  const version = defaultVersionOf(prompt);
  return {
    id: prompt.id,
    object: "prompt",
    name: prompt.name,
    default_version: prompt.defaultVersion,
    version_id: version.versionId,
    model: version.model,
    provider: version.provider,
    virtual_key: version.virtualKey,
    messages: version.messages,
    hyperparameters: version.hyperparameters,
    variables: version.variables,
    versions_count: prompt.versions.length,
    labels: { ...prompt.labels },
    organisation_id: prompt.organisationId,
    workspace_id: prompt.workspaceId,
    owner_id: keyIdOf(prompt.ownerId),
    updated_by: keyIdOf(prompt.updatedBy),
    created_at: prompt.createdAt,
    updated_at: prompt.updatedAt,
  };
}

export function promptVersionView(prompt: PromptRecord, version: PromptVersionRecord): PromptVersion {
  return {
    object: "prompt_version",
    prompt_id: prompt.id,
    version: version.versionNumber,
    version_id: version.versionId,
    is_default: version.versionNumber === prompt.defaultVersion,
    labels: Object.keys(prompt.labels).filter((label) => prompt.labels[label] === version.versionNumber),
    model: version.model,
    provider: version.provider,
    virtual_key: version.virtualKey,
    messages: version.messages,
    hyperparameters: version.hyperparameters,
    variables: version.variables,
    created_at: version.createdAt,
    created_by: keyIdOf(version.createdBy),
  };
}

export function guardrailView(record: GuardrailRecord): Guardrail {
  return {
    id: record.id,
    object: "guardrail",
    slug: record.slug,
    name: record.name,
    checks: maskCheckSecrets(record.checks),
    action: record.action,
    organisation_id: record.organisationId,
    workspace_id: record.workspaceId,
    owner_id: keyIdOf(record.ownerId),
    updated_by: keyIdOf(record.updatedBy),
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}

/** A stored MCP server as every route shows it: the token and header values masked. */
export function mcpServerView(record: McpServerRecord): McpServer {
  return {
    id: record.id,
    object: "mcp_server",
    server_label: record.label,
    server_url: record.url,
    server_description: record.description,
    authorization: record.authorization ? MASKED_SECRET : null,
    headers: maskedHeaders(record.headers),
    allowed_tools: record.allowedTools,
    require_approval: record.requireApproval,
    call_price_usd: record.callPriceUsd,
    tool_prices: record.toolPrices,
    input_guardrails: record.inputGuardrails,
    output_guardrails: record.outputGuardrails,
    organisation_id: record.organisationId,
    workspace_id: record.workspaceId,
    owner_id: keyIdOf(record.ownerId),
    updated_by: keyIdOf(record.updatedBy),
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}

/** A workspace's declared analytics dimensions, as `GET /v1/analytics/dimensions` answers them. */
export function analyticsDimensionsView(dimensions: readonly DeclaredDimension[]): AnalyticsDimensions {
  return {
    object: "analytics.dimensions",
    metadata_keys: dimensions.map((dimension) => ({ key: dimension.key, declared_at: dimension.declaredAt, rollups_from: dimension.rollupsFrom })),
    max_values_per_period: MAX_VALUES_PER_PERIOD,
  };
}
