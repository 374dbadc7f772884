import { hash, randomBytes } from "node:crypto";
import type { ApiKeyRecord } from "../records/api-key.ts";
import { DEFAULT_ORGANISATION_ID, DEFAULT_WORKSPACE_ID, OPERATOR_KEY_ID, type AuthContext } from "./auth-context.ts";
import { servedOrStale } from "./cache.ts";
import { instantOf } from "./key-expiry.ts";

const SECRET_PREFIX = "gw_";

/** A new gateway key secret: 32 random bytes, base64url, with a recognisable prefix. */
export function generateGatewayKeySecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64url");
}

/**
 * SHA-256 of the secret, lowercase hex. Secrets are high-entropy random strings, so a fast
 * hash is enough (no password stretching) and keeps the hot path cheap.
 */
export function hashGatewayKey(secret: string): string {
  return hash("sha256", secret, "hex");
}

/** Compares two hex hashes in constant time (no early exit on the first difference). Never throws. */
export function hashesEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/** The part of a secret that may be shown (prefix plus a few characters). */
export function displayPrefix(secret: string): string {
  return secret.slice(0, SECRET_PREFIX.length + 6);
}

/** The part of the store the key service reads. */
export interface ApiKeyLookup {
  findByHash(hash: string): Promise<ApiKeyRecord | undefined>;
}

interface CacheEntry {
  auth: AuthContext | null;
  /** When the cache must read the key again (ms). */
  expiresAt: number;
  /**
   * When this secret stops working (ms): the key's expiry, or for a secret a rotation replaced
   * the end of its grace period; null: never. Checked on every hit, so an expiry takes effect
   * to the millisecond without a database read.
   */
  validUntil: number | null;
}

const NEGATIVE_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

/**
 * Resolves gateway keys to callers. Lookups are cached by hash so the hot path does not
 * touch the database per request; wrong keys are cached briefly too, so guessing cannot
 * turn into a database load. Revocation calls `forget`, which takes effect at once. A key's
 * expiry, and a rotated-out secret's grace period, are kept in the cached entry and checked on
 * every hit.
 */
export class GatewayKeyService {
  private readonly cache = new Map<string, CacheEntry>();
  /** Lookups in flight, shared by concurrent requests with the same key. */
  private readonly loading = new Map<string, Promise<AuthContext | null>>();
  private readonly adminKeyHash: string | null;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly store: ApiKeyLookup,
    options: { adminKey?: string; ttlMs: number; now?: () => number },
  ) {
    this.adminKeyHash = options.adminKey ? hashGatewayKey(options.adminKey) : null;
    this.ttlMs = options.ttlMs;
    this.now = options.now ?? Date.now;
  }

  /** The caller for a secret, or null when it is unknown, revoked or expired. Never throws on bad input. */
  async authenticate(secret: string): Promise<AuthContext | null> {
    const hash = hashGatewayKey(secret);
    const known = this.knownByHash(hash);
    if (known !== undefined) return known;
    const loading = this.load(hash);
    // An expired cache entry still answers when the store is down or slow: a known key keeps
    // working (until its own expiry).
    const stale = this.cache.get(hash);
    return stale ? servedOrStale(loading, this.answerOf(stale)) : loading;
  }

  /**
   * The answer `authenticate` would give when it needs no database read (the env admin key, a
   * cached key or a cached refusal), without waiting; undefined when it would have to read.
   */
  authenticateCached(secret: string): AuthContext | null | undefined {
    return this.knownByHash(hashGatewayKey(secret));
  }

  private knownByHash(hash: string): AuthContext | null | undefined {
    if (this.adminKeyHash && hashesEqual(hash, this.adminKeyHash)) return ENV_ADMIN;
    const cached = this.cache.get(hash);
    if (!cached) return undefined;
    const now = this.now();
    if (cached.expiresAt <= now) return undefined;
    return this.answerOf(cached);
  }

  private answerOf(entry: CacheEntry): AuthContext | null {
    return entry.validUntil !== null && entry.validUntil <= this.now() ? null : entry.auth;
  }

  private load(hash: string): Promise<AuthContext | null> {
    const inFlight = this.loading.get(hash);
    if (inFlight) return inFlight;
    // Only the current lookup may keep its answer: a `forget` (a revocation) during it starts the next one afresh.
    const current = () => this.loading.get(hash) === loading;
    const loading: Promise<AuthContext | null> = this.store.findByHash(hash).then(
      (record) => {
        const validUntil = record ? secretValidUntil(record, hash) : null;
        const valid = record !== undefined && !record.revokedAt && validUntil !== undefined && (validUntil === null || validUntil > this.now());
        const auth = valid ? toAuthContext(record) : null;
        if (current()) {
          this.loading.delete(hash);
          this.remember(hash, auth, valid ? (validUntil ?? null) : null);
        }
        return auth;
      },
      (error: unknown) => {
        if (current()) this.loading.delete(hash);
        throw error;
      },
    );
    this.loading.set(hash, loading);
    return loading;
  }

  private readonly forgetListeners: ((keyHash: string) => void)[] = [];

  /** Drops a key from the cache (after revocation or a change) and tells the listeners (other replicas). */
  forget(keyHash: string): void {
    this.forgetHere(keyHash);
    for (const listener of this.forgetListeners) listener(keyHash);
  }

  /** Called with every `forget` of this instance. */
  onForget(listener: (keyHash: string) => void): void {
    this.forgetListeners.push(listener);
  }

  /** Drops a key without telling anyone: a change another replica made and announced. */
  forgetHere(keyHash: string): void {
    this.cache.delete(keyHash);
    this.loading.delete(keyHash);
  }

  private remember(hash: string, auth: AuthContext | null, validUntil: number | null): void {
    if (this.cache.size >= MAX_ENTRIES) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(hash, { auth, expiresAt: this.now() + (auth ? this.ttlMs : NEGATIVE_TTL_MS), validUntil });
  }
}

const ENV_ADMIN: AuthContext = Object.freeze({
  keyId: OPERATOR_KEY_ID,
  organisationId: DEFAULT_ORGANISATION_ID,
  workspaceId: DEFAULT_WORKSPACE_ID,
  role: "admin",
  organisationAdmin: true,
});

/**
 * Until when `hash` opens `record` (ms; null: no end): its current secret until the key expires,
 * the secret its last rotation replaced until the grace period (or the key) ends. Undefined when
 * the hash is neither (compared in constant time).
 */
function secretValidUntil(record: ApiKeyRecord, hash: string): number | null | undefined {
  const keyEnd = instantOf(record.expiresAt);
  if (hashesEqual(record.keyHash, hash)) return keyEnd;
  if (record.previousKeyHash === null || !hashesEqual(record.previousKeyHash, hash)) return undefined;
  const graceEnd = instantOf(record.previousKeyExpiresAt) ?? 0;
  return keyEnd === null ? graceEnd : Math.min(keyEnd, graceEnd);
}

function toAuthContext(record: ApiKeyRecord): AuthContext {
  return {
    keyId: record.id,
    organisationId: record.organisationId,
    workspaceId: record.workspaceId,
    role: record.role,
    organisationAdmin: record.organisationAdmin,
    limits: record.budget || record.rateLimit ? { budget: record.budget, rateLimit: record.rateLimit } : null,
    mcpAccess: record.mcpAccess,
    runLimits: record.runLimits ?? null,
  };
}
