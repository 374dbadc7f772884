import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor, RandomIdGenerator, type IdGenerator } from "@opentelemetry/sdk-trace-base";
export { otlpTracesUrl } from "./otlp-url.ts";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import type { Tracer } from "@opentelemetry/api";
import type { GatewayConfig } from "../config.ts";
import type { LogEntry } from "../logging/log-entry.ts";
import type { RecordFigures } from "../logging/record-figures.ts";
import type { RequestObserver } from "./request-observer.ts";
import { emitRequestSpans, type TraceIdChooser } from "./request-spans.ts";


/**
 * Random ids, except a root span's trace id when one is chosen: the SDK takes a root span's trace
 * id from its generator, and a request that starts its own trace is traced under its log id.
 * Synchronous and single-threaded, so the choice cannot leak into another span.
 */
class ChosenTraceIds implements IdGenerator, TraceIdChooser {
  private readonly random = new RandomIdGenerator();
  private chosen: string | null = null;

  generateTraceId(): string {
    return this.chosen ?? this.random.generateTraceId();
  }

  generateSpanId(): string {
    return this.random.generateSpanId();
  }

  withTraceId<T>(traceId: string, start: () => T): T {
    this.chosen = traceId;
    try {
      return start();
    } finally {
      this.chosen = null;
    }
  }
}

export interface TracingOptions {
  url: string;
  headers: Record<string, string>;
  serviceName: string;
  serviceVersion: string;
  /** How often the batch processor exports; the SDK's default (5 s) when absent. */
  scheduledDelayMillis?: number;
}

/**
 * Exports each finished request's spans over OTLP/HTTP (JSON) through a batch span processor:
 * spans are built from the log record with its recorded times, after the answer went out, so
 * the request path never waits on tracing. Every request is exported (the gateway logs every
 * request too): a caller's sampled flag is not consulted.
 */
export class OtlpRequestTracing implements RequestObserver {
  private readonly provider: BasicTracerProvider;
  private readonly tracer: Tracer;
  private readonly ids = new ChosenTraceIds();

  constructor(options: TracingOptions) {
    const exporter = new OTLPTraceExporter({ url: options.url, headers: options.headers });
    this.provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName, [ATTR_SERVICE_VERSION]: options.serviceVersion }),
      sampler: new AlwaysOnSampler(),
      idGenerator: this.ids,
      spanProcessors: [new BatchSpanProcessor(exporter, options.scheduledDelayMillis ? { scheduledDelayMillis: options.scheduledDelayMillis } : {})],
    });
    this.tracer = this.provider.getTracer("ai-gateway", options.serviceVersion);
  }

  observe(entry: LogEntry, figures: RecordFigures | null): void {
    try {
      emitRequestSpans(this.tracer, this.ids, entry, figures);
    } catch (error) {
      // A span that cannot be built is lost, never the request's log nor the other spans.
      console.error(`[gateway] could not build the spans of ${entry.id}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Exports what the batch processor holds. Never rejects. */
  async shutdown(): Promise<void> {
    await this.provider.shutdown().catch((error: unknown) => {
      console.error(`[gateway] could not export the last spans: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  /** Exports what is buffered now (tests). */
  flush(): Promise<void> {
    return this.provider.forceFlush();
  }
}
