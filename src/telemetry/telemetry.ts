import type { GatewayConfig } from "../config.ts";
import type { BatchObserver } from "../logging/log-sink.ts";
import type { SpendFallbackStats } from "./spend-stats.ts";
import type { GatewayMetrics, LogQueueStats } from "./gateway-metrics.ts";
import type { OtlpRequestTracing } from "./otlp-tracing.ts";
import { otlpTracesUrl } from "./otlp-url.ts";
import { batchObserver, type RequestObserver } from "./request-observer.ts";

/** The gateway's metrics and traces, each present only when configured. */
export interface Telemetry {
  /** Null when `GET /metrics` is off. */
  metrics: GatewayMetrics | null;
  /** Null when no OTLP endpoint is set. */
  tracing: OtlpRequestTracing | null;
  /** For the log writer; undefined when both are off, so the writer does nothing more than before. */
  observer: BatchObserver | undefined;
  /** Exports the spans still buffered. Never rejects. */
  shutdown(): Promise<void>;
}

/** Metrics are on with a token or `GATEWAY_METRICS=public`. */
export function metricsEnabled(config: Pick<GatewayConfig, "GATEWAY_METRICS" | "GATEWAY_METRICS_TOKEN">): boolean {
  return config.GATEWAY_METRICS_TOKEN !== undefined || config.GATEWAY_METRICS === "public";
}

/**
 * Builds what the config turns on, and nothing else: the metrics and OpenTelemetry libraries
 * are loaded only when used, so a gateway with both off never holds them in memory.
 * `logQueue` is read only when metrics are scraped.
 */
export async function createTelemetry(
  config: GatewayConfig,
  options: { version: string; logQueue: () => LogQueueStats; spend?: () => SpendFallbackStats | null },
): Promise<Telemetry> {
  const metrics = metricsEnabled(config) ? new (await import("./gateway-metrics.ts")).GatewayMetrics(options.logQueue, options.spend) : null;
  const url = otlpTracesUrl(config);
  const tracing = url
    ? new (await import("./otlp-tracing.ts")).OtlpRequestTracing({
        url,
        headers: config.OTEL_EXPORTER_OTLP_HEADERS,
        serviceName: config.OTEL_SERVICE_NAME,
        serviceVersion: options.version,
      })
    : null;
  const observers: RequestObserver[] = [metrics, tracing].filter((observer) => observer !== null);
  return {
    metrics,
    tracing,
    observer: batchObserver(observers),
    shutdown: async () => {
      await Promise.all(observers.map((observer) => observer.shutdown()));
    },
  };
}
