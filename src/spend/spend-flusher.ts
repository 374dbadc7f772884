import { isoNow } from "../lib/ids.ts";
import type { SpendDelta, SpendKeyKind, SpendRepository } from "../store/spend-repository.ts";

/**
 * Persists settled spend off the request path: settles add to an in-memory delta per key and
 * period, written to `key_spend` every `intervalMs` in one transaction. A failed write keeps
 * its deltas for the next one; `close` writes what is left.
 */
export class SpendFlusher {
  private pending = new Map<string, SpendDelta>();
  private readonly timer: ReturnType<typeof setInterval>;
  private writing: Promise<void> = Promise.resolve();
  private failing = false;

  constructor(
    private readonly repository: Pick<SpendRepository, "add">,
    intervalMs: number,
    private readonly report: (line: string) => void = (line) => console.error(line),
  ) {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    (this.timer as { unref?: () => void }).unref?.();
  }

  /** Never throws, never waits. */
  add(keyKind: SpendKeyKind, keyId: string, periodStart: string, deltaUsd: number): void {
    if (!(deltaUsd > 0)) return;
    const id = `${keyKind}\u0000${keyId}\u0000${periodStart}`;
    const delta = this.pending.get(id);
    if (delta) delta.deltaUsd += deltaUsd;
    else this.pending.set(id, { keyKind, keyId, periodStart, deltaUsd });
  }

  /** Writes every delta added so far; resolves once written (or kept after a failure). */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.write());
    return this.writing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.repository.add([...batch.values()], isoNow());
      this.failing = false;
    } catch (error) {
      for (const delta of batch.values()) this.add(delta.keyKind, delta.keyId, delta.periodStart, delta.deltaUsd);
      if (!this.failing) this.report(`[gateway] spend: could not store settled spend, kept for the next try (${error instanceof Error ? error.message : String(error)})`);
      this.failing = true;
    }
  }
}
