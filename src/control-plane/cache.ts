/**
 * The in-memory cache of control-plane reads on the request path (configs, virtual keys,
 * guardrails, prompts). Route handlers that write call `forget`, so a change is seen at once
 * by this instance; the TTL bounds how long another instance may serve a stale entry.
 */
export const CACHED_KINDS = ["config", "default-config", "virtual-key", "virtual-key-limits", "guardrail", "prompt"] as const;
export type CachedKind = (typeof CACHED_KINDS)[number];

interface Entry {
  value: unknown;
  expiresAt: number;
}

const MAX_ENTRIES = 20_000;

export class ControlPlaneCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<unknown>>();
  /** Keys forgotten while their load was in flight. */
  private readonly forgotten = new Set<string>();
  private readonly forgetListeners: ((kind: CachedKind, workspaceId: string, key: string) => void)[] = [];

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The cached value of (kind, workspace, key), loading it once when absent or expired;
   * concurrent misses share one load. `undefined` results (not found) are cached too.
   */
  async get<T>(kind: CachedKind, workspaceId: string, key: string, load: () => Promise<T>): Promise<T> {
    const id = cacheKey(kind, workspaceId, key);
    const hit = this.entries.get(id);
    if (hit && hit.expiresAt > this.now()) return hit.value as T;
    const inFlight = this.pending.get(id);
    if (inFlight) return inFlight as Promise<T>;
    const loading = load().then(
      (value) => {
        this.pending.delete(id);
        // A `forget` during the load means the value may be stale: do not keep it.
        if (!this.forgotten.delete(id)) this.remember(id, value);
        return value;
      },
      (error: unknown) => {
        this.pending.delete(id);
        this.forgotten.delete(id);
        throw error;
      },
    );
    this.pending.set(id, loading);
    return loading;
  }

  /** Drops one entry (after a write) and tells the listeners (other replicas, `shared-state/invalidations.ts`). */
  forget(kind: CachedKind, workspaceId: string, key: string): void {
    this.forgetHere(kind, workspaceId, key);
    for (const listener of this.forgetListeners) listener(kind, workspaceId, key);
  }

  /** Called with every `forget` of this instance. */
  onForget(listener: (kind: CachedKind, workspaceId: string, key: string) => void): void {
    this.forgetListeners.push(listener);
  }

  /** Drops one entry without telling anyone: a change another replica made and announced. */
  forgetHere(kind: CachedKind, workspaceId: string, key: string): void {
    const id = cacheKey(kind, workspaceId, key);
    this.entries.delete(id);
    if (this.pending.has(id)) this.forgotten.add(id);
  }

  private remember(id: string, value: unknown): void {
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(id, { value, expiresAt: this.now() + this.ttlMs });
  }
}

function cacheKey(kind: CachedKind, workspaceId: string, key: string): string {
  return `${kind}\u0000${workspaceId}\u0000${key}`;
}
