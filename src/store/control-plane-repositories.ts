import type {
  KeyBudget,
  KeyRateLimit,
  ConfigRecord,
  ConfigVersionRecord,
  GuardrailCheckSpec,
  GuardrailRecord,
  McpApprovalPolicy,
  McpServerRecord,
  Ownership,
  PromptMessage,
  PromptRecord,
  PromptVersionRecord,
  StoredCredentialFields,
  VirtualKeyRecord,
} from "../records/control-plane.ts";
import type { SealedSecret } from "../crypto/sealed-secret.ts";

/**
 * The contracts of the control-plane repositories. Every read and write is scoped to one
 * workspace: a record of another workspace is "not found", never an error that tells it exists.
 * Timestamps are ISO 8601 UTC with milliseconds, passed in by the caller.
 */

export interface NewConfig extends Ownership {
  id: string;
  slug: string;
  name: string;
  isDefault: boolean;
  /** JSON text. */
  config: string;
  versionId: string;
  createdAt: string;
}

export interface ConfigChange {
  name?: string;
  config?: string;
  isDefault?: boolean;
  versionId: string;
  updatedBy: string | null;
  at: string;
}

export interface ConfigsRepository {
  /** Inserts the config and its version 1; `isDefault` clears the flag on the workspace's others. */
  create(config: NewConfig): Promise<ConfigRecord>;
  /** Newest first, each with its latest version. */
  list(workspaceId: string): Promise<ConfigRecord[]>;
  getBySlug(workspaceId: string, slug: string): Promise<ConfigRecord | undefined>;
  /** Adds the next version (name/config default to the latest's); undefined when not found. */
  update(workspaceId: string, slug: string, change: ConfigChange): Promise<ConfigRecord | undefined>;
  /** Newest first; undefined when the config is not found. */
  listVersions(workspaceId: string, slug: string): Promise<ConfigVersionRecord[] | undefined>;
  /** Deletes the config and its versions; false when not found. */
  delete(workspaceId: string, slug: string): Promise<boolean>;
}

export interface NewVirtualKey extends Ownership {
  id: string;
  slug: string;
  name: string;
  provider: string;
  encryptedKey: string;
  keyHint: string;
  upstreamOrganization: string | null;
  upstreamProject: string | null;
  customHost: string | null;
  fields: StoredCredentialFields;
  budget: KeyBudget | null;
  rateLimit: KeyRateLimit | null;
  createdAt: string;
}

/** Fields absent are kept; `null` clears a nullable field. */
export interface VirtualKeyChange {
  name?: string;
  encryptedKey?: string;
  keyHint?: string;
  upstreamOrganization?: string | null;
  upstreamProject?: string | null;
  customHost?: string | null;
  fields?: StoredCredentialFields;
  budget?: KeyBudget | null;
  rateLimit?: KeyRateLimit | null;
  updatedBy: string | null;
  at: string;
}

export interface VirtualKeysRepository {
  create(key: NewVirtualKey): Promise<VirtualKeyRecord>;
  /** Newest first. */
  list(workspaceId: string): Promise<VirtualKeyRecord[]>;
  getBySlug(workspaceId: string, slug: string): Promise<VirtualKeyRecord | undefined>;
  /** By id: what a target names its virtual key by. */
  getById(workspaceId: string, id: string): Promise<VirtualKeyRecord | undefined>;
  update(workspaceId: string, slug: string, change: VirtualKeyChange): Promise<VirtualKeyRecord | undefined>;
  delete(workspaceId: string, slug: string): Promise<boolean>;
}

export interface NewPromptVersion {
  versionId: string;
  model: string;
  provider: string | null;
  virtualKey: string | null;
  messages: PromptMessage[];
  hyperparameters: Record<string, unknown>;
  variables: string[];
}

export interface NewPrompt extends Ownership {
  id: string;
  name: string;
  version: NewPromptVersion;
  createdAt: string;
}

export interface PromptsRepository {
  /** Inserts the prompt with version 1 as its default. */
  create(prompt: NewPrompt): Promise<PromptRecord>;
  /** Newest first, each with all its versions (newest first). */
  list(workspaceId: string): Promise<PromptRecord[]>;
  /** The prompt with all its versions, newest first. */
  get(workspaceId: string, id: string): Promise<PromptRecord | undefined>;
  /** Adds the next version; `name` renames the prompt; `publish` makes the new version the default. */
  addVersion(
    workspaceId: string,
    id: string,
    change: { version: NewPromptVersion; name?: string; publish: boolean; updatedBy: string | null; at: string },
  ): Promise<PromptRecord | undefined>;
  /** Makes an existing version number the default (moves `production`); undefined when the prompt or version is missing. */
  publish(workspaceId: string, id: string, versionNumber: number, updatedBy: string | null, at: string): Promise<PromptRecord | undefined>;
  /** Points `label` at an existing version (a label is on one version at most); undefined when the prompt or version is missing. */
  moveLabel(workspaceId: string, id: string, label: string, versionNumber: number, updatedBy: string | null, at: string): Promise<PromptRecord | undefined>;
  /** Takes `label` off the prompt; undefined when the prompt has no such label. Never called for `production`. */
  removeLabel(workspaceId: string, id: string, label: string, updatedBy: string | null, at: string): Promise<PromptRecord | undefined>;
  delete(workspaceId: string, id: string): Promise<boolean>;
}

export type { PromptVersionRecord };

export interface NewGuardrail extends Ownership {
  id: string;
  slug: string;
  name: string;
  checks: GuardrailCheckSpec[];
  action: { deny: boolean };
  createdAt: string;
}

export interface GuardrailChange {
  name?: string;
  checks?: GuardrailCheckSpec[];
  action?: { deny: boolean };
  updatedBy: string | null;
  at: string;
}

export interface GuardrailsRepository {
  create(guardrail: NewGuardrail): Promise<GuardrailRecord>;
  /** Newest first. */
  list(workspaceId: string): Promise<GuardrailRecord[]>;
  getBySlug(workspaceId: string, slug: string): Promise<GuardrailRecord | undefined>;
  update(workspaceId: string, slug: string, change: GuardrailChange): Promise<GuardrailRecord | undefined>;
  delete(workspaceId: string, slug: string): Promise<boolean>;
}

export interface NewMcpServer extends Ownership {
  id: string;
  label: string;
  url: string;
  description: string | null;
  authorization: SealedSecret | null;
  headers: Record<string, SealedSecret>;
  allowedTools: string[] | null;
  requireApproval: McpApprovalPolicy;
  callPriceUsd: number | null;
  toolPrices: Record<string, number> | null;
  inputGuardrails: string[] | null;
  outputGuardrails: string[] | null;
  createdAt: string;
}

/** Absent fields keep their stored value. */
export interface McpServerChange {
  url?: string;
  description?: string | null;
  authorization?: SealedSecret | null;
  headers?: Record<string, SealedSecret>;
  allowedTools?: string[] | null;
  requireApproval?: McpApprovalPolicy;
  callPriceUsd?: number | null;
  toolPrices?: Record<string, number> | null;
  inputGuardrails?: string[] | null;
  outputGuardrails?: string[] | null;
  updatedBy: string | null;
  at: string;
}

export interface McpServersRepository {
  /** Undefined when the workspace already has a server with this label. */
  create(server: NewMcpServer): Promise<McpServerRecord | undefined>;
  /** Newest first. */
  list(workspaceId: string): Promise<McpServerRecord[]>;
  getByLabel(workspaceId: string, label: string): Promise<McpServerRecord | undefined>;
  update(workspaceId: string, label: string, change: McpServerChange): Promise<McpServerRecord | undefined>;
  delete(workspaceId: string, label: string): Promise<boolean>;
  /** Every server of every workspace (re-sealing after a master-key rotation). */
  listAll(): Promise<McpServerRecord[]>;
}
