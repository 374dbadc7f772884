import { sql } from "kysely";
import { afterAll, beforeAll } from "vitest";
import type { TestDatabase } from "../../test/support/databases.ts";
import type { ApiKeyRecord } from "../records/api-key.ts";
import type { LogRecord } from "../records/log-record.ts";
import type { NewConfig, NewGuardrail, NewPrompt, NewPromptVersion, NewVirtualKey } from "./control-plane-repositories.ts";
import { toMetadataRows } from "./log-rows.ts";
import { openStore, type Store } from "./open-store.ts";

/**
 * Test-only helpers for the store suites (imported by `*.test.ts` only).
 */

/**
 * Opens a store on a fresh test database before the suite and removes both after it.
 * Returns a getter because the store exists only once `beforeAll` has run.
 */
export function useStore(create: () => Promise<TestDatabase>): () => Store {
  let database: TestDatabase | undefined;
  let store: Store | undefined;
  beforeAll(async () => {
    database = await create();
    store = await openStore(database.url);
  });
  afterAll(async () => {
    await store?.close();
    await database?.cleanup();
  });
  return () => {
    if (!store) throw new Error("store not open: useStore's beforeAll has not run");
    return store;
  };
}

/**
 * PostgreSQL: stores the records as a gateway before migration 0029 did (their pairs in
 * `log_metadata`, none in the row), for the reads that still meet such rows.
 */
export async function insertAsBefore0029(store: Store, records: readonly LogRecord[]): Promise<void> {
  await store.logs.insertBatch([...records]);
  const ids = records.map((record) => record.id);
  await sql`UPDATE logs SET metadata_pairs = NULL WHERE id IN (${sql.join(ids)})`.execute(store.db);
  const pairs = records.flatMap(toMetadataRows);
  for (let start = 0; start < pairs.length; start += 2_000) await store.db.insertInto("log_metadata").values(pairs.slice(start, start + 2_000)).execute();
}

/** A unique id for a test's organisation or workspace, so tests sharing a database never meet. */
export function scopeId(label: string): string {
  return `${label}-${crypto.randomUUID()}`;
}

/**
 * A well-formed UUIDv7 for millisecond `ms`, then `seq`, then random bits: ids sort by
 * (ms, seq) deterministically (the gateway's own generator is random within a millisecond),
 * yet two calls never collide, so tests sharing a database cannot overwrite each other.
 */
export function uuidv7At(ms: number, seq = 0): string {
  const time = ms.toString(16).padStart(12, "0");
  const random = crypto.randomUUID().replaceAll("-", "").slice(0, 12);
  const tail = `${seq.toString(16).padStart(6, "0")}${random}`;
  return `${time.slice(0, 8)}-${time.slice(8)}-7${tail.slice(0, 3)}-8${tail.slice(3, 6)}-${tail.slice(6)}`;
}

export function apiKeyRecord(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  const id = crypto.randomUUID();
  return {
    id,
    organisationId: "org-default",
    workspaceId: "ws-default",
    name: `key ${id.slice(0, 8)}`,
    role: "service",
    organisationAdmin: false,
    keyHash: `${id.replaceAll("-", "")}${"0".repeat(32)}`,
    keyPrefix: `gw-${id.slice(0, 6)}`,
    createdAt: "2026-01-01T00:00:00.000Z",
    createdBy: null,
    revokedAt: null,
    expiresAt: null,
    previousKeyHash: null,
    previousKeyExpiresAt: null,
    budget: null,
    rateLimit: null,
    mcpAccess: null,
    runLimits: null,
    ...overrides,
  };
}

/** A log record at `ms` (id and createdAt agree), every field filled with a distinct value. */
export function logRecord(ms: number, overrides: Partial<LogRecord> = {}, seq = 0): LogRecord {
  return {
    id: uuidv7At(ms, seq),
    createdAt: new Date(ms).toISOString(),
    organisationId: "org-default",
    workspaceId: "ws-default",
    apiKeyId: "key-1",
    virtualKeyId: "vk-1",
    provider: "openai",
    model: "gpt-4o-mini",
    route: "createChatCompletion",
    method: "POST",
    path: "/v1/chat/completions",
    status: 200,
    success: true,
    stream: false,
    latencyMs: 123.5,
    timeToFirstTokenMs: 45.25,
    promptTokens: 11,
    completionTokens: 22,
    totalTokens: 33,
    cachedTokens: 4,
    reasoningTokens: 5,
    webSearches: 0,
    costUsd: 0.000123,
    costSavedUsd: 0.000456,
    costNote: null,
    cacheStatus: "MISS",
    cacheSimilarity: null,
    cacheSourceLogId: null,
    cacheNote: null,
    user: "user-1",
    metadata: { env: "test" },
    traceId: `trace-${ms}-${seq}`,
    spanId: "span-1",
    parentSpanId: "parent-1",
    spanName: "chat",
    requestBody: '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}',
    requestBodyTruncated: true,
    requestBodyBytes: 1234,
    responseBody: '{"id":"chatcmpl-1","choices":[]}',
    responseBodyTruncated: true,
    responseBodyBytes: 56789,
    errorCode: null,
    errorMessage: null,
    promptId: "prompt-1",
    promptVersion: 3,
    configId: "config-1",
    configVersion: 2,
    experimentId: null,
    experimentVariant: null,
    guardrailResults: '[{"check":"regex","verdict":true,"latencyMs":1}]',
    attempts: [{ target: 0, path: "", retry: 0, provider: "openai", model: "gpt-4o-mini", status: 200, latencyMs: 120.25, errorCode: null, errorMessage: null }],
    toolRun: [],
    ...overrides,
  };
}

/** A unique slug with the given prefix (`pc`, `vk`, `pg`), so tests sharing a database never clash. */
export function uniqueSlug(prefix: string): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 13)}`;
}

/** A new config in `ws-default`, not the default, with a one-target body. */
export function newConfig(overrides: Partial<NewConfig> = {}): NewConfig {
  return {
    id: crypto.randomUUID(),
    slug: uniqueSlug("pc"),
    name: "primary config",
    isDefault: false,
    config: '{"provider":"openai","retry":{"attempts":2}}',
    versionId: crypto.randomUUID(),
    createdAt: "2026-01-01T00:00:00.000Z",
    organisationId: "org-default",
    workspaceId: "ws-default",
    ownerId: "key-owner",
    updatedBy: "key-owner",
    ...overrides,
  };
}

/** A new virtual key with every optional field filled. */
export function newVirtualKey(overrides: Partial<NewVirtualKey> = {}): NewVirtualKey {
  return {
    id: crypto.randomUUID(),
    slug: uniqueSlug("vk"),
    name: "openai production",
    provider: "openai",
    encryptedKey: "v1.iv.ciphertext.tag",
    keyHint: "abcd",
    upstreamOrganization: "org-upstream",
    upstreamProject: "proj-upstream",
    customHost: "https://llm.internal.example/v1",
    fields: { azure_deployment: "prod", azure_api_version: "2024-10-21", aws_session_token: { $sealed: "v1.iv.token.tag" } },
    budget: { creditLimitUsd: 12.5, period: "monthly", alertThreshold: null },
    rateLimit: { requestsPerMinute: 60, requestsPerHour: null, requestsPerDay: null, tokensPerMinute: 90_000, tokensPerHour: null, tokensPerDay: null },
    createdAt: "2026-01-01T00:00:00.000Z",
    organisationId: "org-default",
    workspaceId: "ws-default",
    ownerId: "key-owner",
    updatedBy: "key-owner",
    ...overrides,
  };
}

/** A prompt version with a templated message and hyperparameters. */
export function newPromptVersion(overrides: Partial<NewPromptVersion> = {}): NewPromptVersion {
  return {
    versionId: crypto.randomUUID(),
    model: "gpt-4o-mini",
    provider: "openai",
    virtualKey: null,
    messages: [
      { role: "system", content: "You are {{tone}}." },
      { role: "user", content: "Summarise {{topic}}." },
    ],
    hyperparameters: { temperature: 0.2, max_tokens: 256 },
    variables: ["tone", "topic"],
    ...overrides,
  };
}

export function newPrompt(overrides: Partial<NewPrompt> = {}): NewPrompt {
  return {
    id: crypto.randomUUID(),
    name: "summariser",
    version: newPromptVersion(),
    createdAt: "2026-01-01T00:00:00.000Z",
    organisationId: "org-default",
    workspaceId: "ws-default",
    ownerId: "key-owner",
    updatedBy: "key-owner",
    ...overrides,
  };
}

export function newGuardrail(overrides: Partial<NewGuardrail> = {}): NewGuardrail {
  return {
    id: crypto.randomUUID(),
    slug: uniqueSlug("pg"),
    name: "no secrets",
    checks: [
      { type: "regex", params: { pattern: "sk-[a-z0-9]+", not: true } },
      { type: "wordCount", params: { min: 1, max: 500 } },
    ],
    action: { deny: true },
    createdAt: "2026-01-01T00:00:00.000Z",
    organisationId: "org-default",
    workspaceId: "ws-default",
    ownerId: "key-owner",
    updatedBy: "key-owner",
    ...overrides,
  };
}
