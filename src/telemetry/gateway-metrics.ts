import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { LogEntry } from "../logging/log-entry.ts";
import type { RecordFigures } from "../logging/record-figures.ts";
import type { SpendFallbackStats } from "./spend-stats.ts";
import { LabelCap } from "./label-cap.ts";
import type { RequestObserver } from "./request-observer.ts";

/** What the metrics read of the log writer when scraped (`LogWriter` has these). */
export interface LogQueueStats {
  readonly pendingCount: number;
  readonly droppedCount: number;
  readonly retriedCount: number;
  readonly lostCount: number;
  readonly rejectedCount: number;
  readonly spooledCount: number;
  readonly storeDown: boolean;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const TTFT_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30];

/**
 * The gateway's Prometheus metrics, in a registry of their own (never prom-client's global one,
 * so two gateways in one process, as in tests, do not share figures). Request figures are
 * counted once per request from its finished log record; the log queue's are read when scraped.
 */
export class GatewayMetrics implements RequestObserver {
  readonly registry = new Registry();
  private readonly models = new LabelCap();
  private readonly providers = new LabelCap(50);
  private readonly requests: Counter<"route" | "provider" | "model" | "status_class">;
  private readonly latency: Histogram<"route" | "provider">;
  private readonly firstToken: Histogram<"route" | "provider">;
  private readonly tokens: Counter<"provider" | "model" | "type">;
  private readonly cost: Counter<"provider" | "model">;
  private readonly upstreamErrors: Counter<"provider" | "status">;
  private readonly cacheHits: Counter<"route">;
  private readonly semanticCacheHits: Counter<"route">;
  private readonly cacheMisses: Counter<"route">;

  constructor(logQueue: () => LogQueueStats, spend: () => SpendFallbackStats | null = () => null) {
    const registers = [this.registry];
    this.requests = new Counter({ name: "gateway_requests_total", help: "Requests served, by operation, provider, model and status class.", labelNames: ["route", "provider", "model", "status_class"], registers });
    this.latency = new Histogram({ name: "gateway_request_duration_seconds", help: "Request latency, from arrival to the answer's last byte.", labelNames: ["route", "provider"], buckets: LATENCY_BUCKETS, registers });
    this.firstToken = new Histogram({ name: "gateway_time_to_first_token_seconds", help: "Time from a streamed request's arrival to its first token.", labelNames: ["route", "provider"], buckets: TTFT_BUCKETS, registers });
    this.tokens = new Counter({ name: "gateway_tokens_total", help: "Tokens the upstream reported, by type (input or output).", labelNames: ["provider", "model", "type"], registers });
    this.cost = new Counter({ name: "gateway_cost_usd_total", help: "Cost in US dollars of the requests that could be priced.", labelNames: ["provider", "model"], registers });
    this.upstreamErrors = new Counter({ name: "gateway_upstream_errors_total", help: "Upstream tries that failed: an HTTP status of 400 or more, or the gateway's error code when no status came.", labelNames: ["provider", "status"], registers });
    this.cacheHits = new Counter({ name: "gateway_cache_hits_total", help: "Requests answered from the answer cache.", labelNames: ["route"], registers });
    this.semanticCacheHits = new Counter({
      name: "gateway_semantic_cache_hits_total",
      help: "Requests answered from the semantic cache with the answer of a request that means the same.",
      labelNames: ["route"],
      registers,
    });
    this.cacheMisses = new Counter({ name: "gateway_cache_misses_total", help: "Cacheable requests the answer cache could not answer (misses and forced refreshes).", labelNames: ["route"], registers });
    new Gauge({
      name: "gateway_log_queue_depth",
      help: "Log records waiting for the batch writer.",
      registers,
      collect() {
        this.set(logQueue().pendingCount);
      },
    });
    new Counter({
      name: "gateway_log_writes_dropped_total",
      help: "Log records not stored: queue_full when the queue overflowed while neither the store nor the spool took them, write_failed when the store was down at shutdown with no spool, rejected when the store refused the record (kept in rejected.jsonl).",
      labelNames: ["reason"],
      registers,
      collect() {
        const stats = logQueue();
        this.reset();
        this.inc({ reason: "queue_full" }, stats.droppedCount);
        this.inc({ reason: "write_failed" }, stats.lostCount);
        this.inc({ reason: "rejected" }, stats.rejectedCount);
      },
    });
    new Counter({
      name: "gateway_log_records_spooled_total",
      help: "Log records written to the spool file: the store was down, or the queue was full while the store was slower than records arrived.",
      registers,
      collect() {
        this.reset();
        this.inc(logQueue().spooledCount);
      },
    });
    new Gauge({
      name: "gateway_log_store_up",
      help: "1 while the log store takes writes, 0 while it is down and records are being spooled.",
      registers,
      collect() {
        this.set(logQueue().storeDown ? 0 : 1);
      },
    });
    new Gauge({
      name: "gateway_spend_counters_shared",
      help: "1 while budgets and rate limits are counted in Redis, shared by the replicas; 0 while this replica counts alone (Redis down or being seeded again).",
      registers,
      collect() {
        this.set(spend()?.shared ? 1 : 0);
      },
    });
    new Counter({
      name: "gateway_spend_local_admissions_total",
      help: "Metered requests this replica counted alone, by where its counters started: last_shared (the last values Redis answered) or own_counts (no shared value seen for the key).",
      labelNames: ["start"],
      registers,
      collect() {
        const stats = spend();
        this.reset();
        this.inc({ start: "last_shared" }, stats?.localFromLastShared ?? 0);
        this.inc({ start: "own_counts" }, stats?.localFromOwnCounts ?? 0);
      },
    });
    new Counter({
      name: "gateway_spend_redis_reseeds_total",
      help: "Times this replica seeded a Redis that had lost its counters from the store.",
      registers,
      collect() {
        this.reset();
        this.inc(spend()?.reseeds ?? 0);
      },
    });
    new Counter({
      name: "gateway_log_writes_retried_total",
      help: "Log records stored after a first write failed (held in memory), or replayed from the spool.",
      registers,
      collect() {
        this.reset();
        this.inc(logQueue().retriedCount);
      },
    });
  }

  observe(entry: LogEntry, figures: RecordFigures | null): void {
    const route = entry.route;
    const provider = this.providers.value(entry.provider);
    const model = this.models.value(entry.model);
    this.requests.inc({ route, provider, model, status_class: `${Math.floor(entry.status / 100)}xx` });
    this.latency.observe({ route, provider }, entry.latencyMs / 1000);
    if (entry.timeToFirstTokenMs !== null) this.firstToken.observe({ route, provider }, entry.timeToFirstTokenMs / 1000);
    if (figures) {
      if (figures.inputTokens > 0) this.tokens.inc({ provider, model, type: "input" }, figures.inputTokens);
      if (figures.outputTokens > 0) this.tokens.inc({ provider, model, type: "output" }, figures.outputTokens);
      if (figures.costUsd !== null && figures.costUsd > 0) this.cost.inc({ provider, model }, figures.costUsd);
    }
    if (entry.cacheStatus === "HIT") this.cacheHits.inc({ route });
    else if (entry.cacheStatus === "SEMANTIC_HIT") this.semanticCacheHits.inc({ route });
    else if (entry.cacheStatus === "MISS" || entry.cacheStatus === "REFRESH") this.cacheMisses.inc({ route });
    for (const attempt of entry.attempts) {
      if (attempt.status !== null && attempt.status < 400) continue;
      this.upstreamErrors.inc({ provider: this.providers.value(attempt.provider), status: attempt.status === null ? (attempt.errorCode ?? "none") : String(attempt.status) });
    }
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ text: string; contentType: string }> {
    return { text: await this.registry.metrics(), contentType: this.registry.contentType };
  }

  async shutdown(): Promise<void> {}
}
