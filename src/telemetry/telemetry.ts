import type { GatewayConfig } from "../config.ts";
import type { BatchObserver } from "../logging/log-writer.ts";
import { GatewayMetrics, type LogQueueStats } from "./gateway-metrics.ts";
import { OtlpRequestTracing, otlpTracesUrl } from "./otlp-tracing.ts";
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

/** Builds what the config turns on, and nothing else. `logQueue` is read only when metrics are scraped. */
export function createTelemetry(config: GatewayConfig, options: { version: string; logQueue: () => LogQueueStats }): Telemetry {
  const metrics = metricsEnabled(config) ? new GatewayMetrics(options.logQueue) : null;
  const url = otlpTracesUrl(config);
  const tracing = url
    ? new OtlpRequestTracing({ url, headers: config.OTEL_EXPORTER_OTLP_HEADERS, serviceName: config.OTEL_SERVICE_NAME, serviceVersion: options.version })
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
