/**
 * The in-memory cache of control-plane reads on the request path (configs, virtual keys,
 * guardrails, prompts, a workspace's budgets, experiments). Route handlers that write call `forget`, so a change is seen at once
 * by this instance; the TTL bounds how long another instance may serve a stale entry.
 */
export const CACHED_KINDS = ["config", "default-config", "virtual-key", "guardrail", "prompt", "mcp-server", "mcp-server-labels", "budgets", "experiment"] as const;
export type CachedKind = (typeof CACHED_KINDS)[number];

interface Entry {
  value: unknown;
  expiresAt: number;
}

const MAX_ENTRIES = 20_000;
/** How long a request waits for a reload before it is served the expired entry. */
const STALE_WAIT_MS = 1_000;

/** The load's value, or `stale` when the load fails or takes longer than `STALE_WAIT_MS`. */
export async function servedOrStale<T>(loading: Promise<T>, stale: T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waited = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(stale), STALE_WAIT_MS);
  });
  try {
    return await Promise.race([loading.catch(() => stale), waited]);
  } finally {
    clearTimeout(timer);
  }
}

export class ControlPlaneCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<unknown>>();
  private readonly forgetListeners: ((kind: CachedKind, workspaceId: string, key: string) => void)[] = [];

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The cached value of (kind, workspace, key), loading it once when absent or expired;
   * concurrent misses share one load. `undefined` results (not found) are cached too.
   * When a load fails, or is still running after `STALE_WAIT_MS`, an expired entry is served
   * instead: a store that is down or slow costs no request that was served before.
   */
  async get<T>(kind: CachedKind, workspaceId: string, key: string, load: () => Promise<T>): Promise<T> {
    const id = cacheKey(kind, workspaceId, key);
    const hit = this.entries.get(id);
    if (hit && hit.expiresAt > this.now()) return hit.value as T;
    const loading = (this.pending.get(id) as Promise<T> | undefined) ?? this.load(id, load);
    return hit ? servedOrStale(loading, hit.value as T) : loading;
  }

  /** The cached value of (kind, workspace, key) while it is fresh, without a promise; undefined when it must be loaded (`get`). */
  peek<T>(kind: CachedKind, workspaceId: string, key: string): T | undefined {
    const hit = this.entries.get(cacheKey(kind, workspaceId, key));
    return hit && hit.expiresAt > this.now() ? (hit.value as T) : undefined;
  }

  private load<T>(id: string, load: () => Promise<T>): Promise<T> {
    // Only the current load may keep its value: a `forget` during it starts the next one afresh.
    const current = () => this.pending.get(id) === loading;
    const loading: Promise<T> = load().then(
      (value) => {
        if (current()) {
          this.pending.delete(id);
          this.remember(id, value);
        }
        return value;
      },
      (error: unknown) => {
        if (current()) this.pending.delete(id);
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
    this.pending.delete(id);
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
