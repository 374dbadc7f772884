import { GatewayError } from "../errors.ts";
import type { SharedRedis } from "../shared-state/redis.ts";
import type { MeterPlan, ReserveOutcome, SettleOutcome, SpendCounters, Usage } from "./meter-plan.ts";
import type { SpendKeyKind } from "../store/spend-repository.ts";

export type FailurePolicy = "open" | "closed";

/**
 * Chooses where counters live for each call: Redis when configured and reachable, else the
 * process's own under `GATEWAY_REDIS_FAILURE_POLICY` — `open` meters in process (one line in
 * the gateway's log per outage), `closed` refuses with 503. Never throws.
 */
export class FailoverCounters {
  private outage = false;

  constructor(
    private readonly redis: SharedRedis | null,
    private readonly shared: SpendCounters | null,
    private readonly local: SpendCounters,
    private readonly policy: FailurePolicy,
    private readonly report: (line: string) => void = (line) => console.error(line),
  ) {}

  /** The counters that admitted (or refused) the request with the outcome; settle on the same ones. */
  async reserve(plan: MeterPlan): Promise<{ counters: SpendCounters; outcome: ReserveOutcome } | GatewayError> {
    if (this.shared && this.redis?.available) {
      try {
        const outcome = await this.shared.reserve(plan);
        this.recovered();
        return { counters: this.shared, outcome };
      } catch (error) {
        this.down(error);
      }
    } else if (this.shared) this.down(null);
    if (this.shared && this.policy === "closed") {
      return new GatewayError(
        "service_unavailable",
        "Budgets and rate limits are shared through Redis, which cannot be reached; the gateway refuses metered requests meanwhile (GATEWAY_REDIS_FAILURE_POLICY=closed).",
      );
    }
    return { counters: this.local, outcome: await this.local.reserve(plan) };
  }

  /** Settles on the counters that reserved; if those are Redis and it is gone, in process instead. */
  async settle(counters: SpendCounters, plan: MeterPlan, usage: readonly Usage[]): Promise<SettleOutcome> {
    if (counters === this.local) return this.local.settle(plan, usage);
    try {
      return await counters.settle(plan, usage);
    } catch (error) {
      this.down(error);
      return this.local.settle(plan, usage);
    }
  }

  /** Settled spend for a view: from Redis when reachable, else this process's counters. */
  async spent(kind: SpendKeyKind, id: string, periodStart: string): Promise<number> {
    if (this.shared && this.redis?.available) {
      try {
        return await this.shared.spent(kind, id, periodStart);
      } catch (error) {
        this.down(error);
      }
    }
    return this.local.spent(kind, id, periodStart);
  }

  async seed(rows: Parameters<SpendCounters["seed"]>[0]): Promise<void> {
    await this.local.seed(rows);
    if (this.shared && this.redis?.available) await this.shared.seed(rows).catch((error: unknown) => this.down(error));
  }

  private down(error: unknown): void {
    if (this.outage) return;
    this.outage = true;
    const reason = error instanceof Error ? ` (${error.message})` : "";
    this.report(
      this.policy === "open"
        ? `[gateway] spend: Redis unreachable${reason}; budgets and rate limits are enforced by each replica alone until it is back (GATEWAY_REDIS_FAILURE_POLICY=open)`
        : `[gateway] spend: Redis unreachable${reason}; metered requests answer 503 until it is back (GATEWAY_REDIS_FAILURE_POLICY=closed)`,
    );
  }

  private recovered(): void {
    if (!this.outage) return;
    this.outage = false;
    this.report("[gateway] spend: Redis reachable again; budgets and rate limits are shared");
  }
}
