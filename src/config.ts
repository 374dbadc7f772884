import { z } from "zod";

const csv = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? "")
      .split(",")
      .map((item) => item.trim().toLowerCase())
      .filter((item) => item.length > 0),
  );

/**
 * The longest upstream timeout the gateway accepts, from any source (env, config, header): one
 * hour, far beyond any non-streamed call yet well under the 2^31-1 ms where timers fire at once.
 */
export const MAX_REQUEST_TIMEOUT_MS = 3_600_000;
const ONE_DAY_MS = 86_400_000;
/** 1 GiB: byte limits above it would let one request hold more memory than a gateway has. */
const MAX_BYTES = 1024 * 1024 * 1024;

/**
 * A whole number written in decimal digits only: no sign, space, exponent or hex, which
 * `Number()` would quietly accept. Bounded, so a timer never receives a value it cannot hold.
 */
function wholeNumber(fallback: number, min: number, max: number) {
  return z
    .string()
    .regex(/^[0-9]+$/, "must be written in decimal digits only")
    .optional()
    .transform((value) => (value === undefined ? fallback : Number(value)))
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));
}

const httpUrl = z
  .string()
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), "must be an http(s) URL");

/** `OTEL_EXPORTER_OTLP_HEADERS`: `k1=v1,k2=v2`, each value percent-decoded, as the OpenTelemetry spec writes it. */
const otlpHeaders = z
  .string()
  .optional()
  .transform((value, context) => {
    const headers: Record<string, string> = {};
    for (const pair of (value ?? "").split(",")) {
      if (pair.trim() === "") continue;
      const at = pair.indexOf("=");
      const name = at > 0 ? pair.slice(0, at).trim() : "";
      if (name === "") {
        context.addIssue({ code: "custom", message: "must be key=value pairs separated by commas" });
        return z.NEVER;
      }
      try {
        headers[name] = decodeURIComponent(pair.slice(at + 1).trim());
      } catch {
        context.addIssue({ code: "custom", message: `the value of ${name} is not valid percent-encoding` });
        return z.NEVER;
      }
    }
    return headers;
  });

const ConfigSchema = z.object({
  PORT: wholeNumber(8787, 0, 65535),
  HOST: z.string().default("0.0.0.0"),
  GATEWAY_DATABASE_URL: z.string().default("file:./data/gateway.db"),
  GATEWAY_ADMIN_KEY: z.string().min(16, "GATEWAY_ADMIN_KEY must be at least 16 characters").optional(),
  /** 32 bytes, base64 or hex: the master key for secrets at rest. Else one is generated in GATEWAY_DATA_DIR. */
  GATEWAY_ENCRYPTION_KEY: z.string().optional(),
  GATEWAY_DATA_DIR: z.string().default("./data"),
  GATEWAY_CONTROL_PLANE_CACHE_TTL_MS: wholeNumber(60_000, 1, ONE_DAY_MS),
  GATEWAY_TRUSTED_CUSTOM_HOSTS: csv,
  GATEWAY_ALLOW_PUBLIC_CUSTOM_HOSTS: z
    .enum(["0", "1", "true", "false"])
    .default("false")
    .transform((value) => value === "1" || value === "true"),
  GATEWAY_REQUEST_TIMEOUT_MS: wholeNumber(600_000, 1, MAX_REQUEST_TIMEOUT_MS),
  /** A JSON body (read whole and parsed) may not be larger: 413. */
  GATEWAY_MAX_BODY_BYTES: wholeNumber(32 * 1024 * 1024, 1, MAX_BYTES),
  /**
   * Any other body (a multipart upload, a binary body), passed upstream as it arrives, may not be
   * larger: 413 and the upstream request cut off. 512 MiB is the upstream's own largest file.
   */
  GATEWAY_MAX_UPLOAD_BYTES: wholeNumber(512 * 1024 * 1024, 1, MAX_BYTES),
  /** The log keeps at most this many bytes of each request and response body (flagged when cut). */
  GATEWAY_MAX_LOGGED_BODY_BYTES: wholeNumber(1024 * 1024, 0, MAX_BYTES),
  /** An upstream answer the gateway must read whole (output guardrails) may not be larger: 502. */
  GATEWAY_MAX_RESPONSE_BUFFER_BYTES: wholeNumber(32 * 1024 * 1024, 1, MAX_BYTES),
  /**
   * Node: a request's line and headers must arrive within this (`server.headersTimeout`), else 408
   * and the connection closed. Bun's own parser allows about 10 s, fixed; 10 s here matches it.
   */
  GATEWAY_HEADERS_TIMEOUT_MS: wholeNumber(10_000, 1_000, MAX_REQUEST_TIMEOUT_MS),
  /**
   * A JSON body must arrive whole within this, counted from the request's headers (408, the
   * connection closed), on both runtimes; under Node it is also `server.requestTimeout`, which
   * bounds every request's headers and body together (an upload's too).
   */
  GATEWAY_BODY_TIMEOUT_MS: wholeNumber(300_000, 1_000, MAX_REQUEST_TIMEOUT_MS),
  /** A keep-alive connection idle between requests this many seconds is closed (Bun's `idleTimeout` is at most 255). */
  GATEWAY_IDLE_TIMEOUT_S: wholeNumber(75, 1, 255),
  /**
   * A client that takes none of a stream's bytes for this long while the gateway has some for it
   * is cut off: the upstream call is aborted and the request logged 499 `client_closed`.
   */
  GATEWAY_STREAM_STALL_TIMEOUT_MS: wholeNumber(60_000, 100, MAX_REQUEST_TIMEOUT_MS),
  /** A tool run the gateway drives (Responses `mcp` tools): model rounds at most; the last is asked to answer without tools. */
  GATEWAY_MCP_MAX_ROUNDS: wholeNumber(5, 1, 50),
  /** One request to an MCP server (connecting, listing its tools, one call). */
  GATEWAY_MCP_CALL_TIMEOUT_MS: wholeNumber(30_000, 100, MAX_REQUEST_TIMEOUT_MS),
  /** A whole tool run, from its first connection to its answer. */
  GATEWAY_MCP_RUN_TIMEOUT_MS: wholeNumber(300_000, 100, MAX_REQUEST_TIMEOUT_MS),
  /** A tool's result as the model gets it: a longer one is cut, with a note saying so. */
  GATEWAY_MCP_MAX_RESULT_BYTES: wholeNumber(64 * 1024, 256, MAX_BYTES),
  GATEWAY_LOG_FLUSH_INTERVAL_MS: wholeNumber(250, 1, MAX_REQUEST_TIMEOUT_MS),
  GATEWAY_LOG_BATCH_SIZE: wholeNumber(200, 1, 100_000),
  /** Where log batches wait while the store is down (an append-only file per process); default `<GATEWAY_DATA_DIR>/log-spool`. */
  GATEWAY_LOG_SPOOL_DIR: z.string().optional(),
  /** The spool holds at most this many bytes; past it, records wait in memory (bounded), then are dropped and counted. 0 turns the spool off. */
  GATEWAY_LOG_SPOOL_MAX_BYTES: wholeNumber(1024 * 1024 * 1024, 0, MAX_BYTES),
  /** Logs older than this many days are deleted (with their rollups) by a timer; unset keeps them forever. */
  GATEWAY_LOG_RETENTION_DAYS: z
    .string()
    .regex(/^[0-9]+$/, "must be written in decimal digits only")
    .optional()
    .transform((value) => (value === undefined ? undefined : Number(value)))
    .pipe(z.number().int().min(1, "must be at least 1").max(36_500, "must be at most 36500").optional()),
  GATEWAY_SHUTDOWN_TIMEOUT_MS: wholeNumber(30_000, 1, MAX_REQUEST_TIMEOUT_MS),
  GATEWAY_KEY_CACHE_TTL_MS: wholeNumber(60_000, 1, ONE_DAY_MS),
  /** The in-memory answer cache (without GATEWAY_REDIS_URL): at most this many answers… */
  GATEWAY_CACHE_MAX_ENTRIES: wholeNumber(10_000, 1, 10_000_000),
  /** …and this many bytes in all; the least recently used go first. */
  GATEWAY_CACHE_MAX_BYTES: wholeNumber(256 * 1024 * 1024, 1, MAX_BYTES),
  /** A larger answer is served but not cached (in memory or in Redis). */
  GATEWAY_CACHE_MAX_ENTRY_BYTES: wholeNumber(4 * 1024 * 1024, 1, MAX_BYTES),
  /** Mutual TLS towards the upstream: the client key and certificate (PEM files), read once at start. */
  UPSTREAM_MTLS_KEY_PATH: z.string().optional(),
  UPSTREAM_MTLS_CERT_PATH: z.string().optional(),
  /** The CA (PEM) the upstream's server certificate is checked against, instead of the system's. */
  UPSTREAM_MTLS_CA_PATH: z.string().optional(),
  /** Shared state across replicas (rate limits, spend reservations, cache, circuit breakers); in process when unset. */
  GATEWAY_REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL")
    .optional(),
  /** When Redis cannot be reached: `open` keeps serving with in-process limits, `closed` refuses with 503. */
  GATEWAY_REDIS_FAILURE_POLICY: z.enum(["open", "closed"]).default("open"),
  /**
   * The completion tokens a request is assumed to use at most when it sets no
   * `max_completion_tokens`/`max_tokens`/`max_output_tokens`: part of the worst case a budget reserves.
   */
  GATEWAY_SPEND_DEFAULT_MAX_TOKENS: wholeNumber(4096, 1, 10_000_000),
  /** How often settled spend is written to the store (`key_spend`), in one batch per replica. */
  GATEWAY_SPEND_FLUSH_INTERVAL_MS: wholeNumber(1000, 1, ONE_DAY_MS),
  /** OTLP/HTTP base URL (`/v1/traces` is appended); unset and without a traces endpoint, no span is ever made. */
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl.optional(),
  /** The traces endpoint itself, used as it is; wins over the base URL. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl.optional(),
  /** `key=value` pairs, comma-separated, values percent-decoded (the OpenTelemetry format). */
  OTEL_EXPORTER_OTLP_HEADERS: otlpHeaders,
  OTEL_SERVICE_NAME: z.string().default("ai-gateway"),
  /** Turns `GET /metrics` on behind `Authorization: Bearer <token>`. */
  GATEWAY_METRICS_TOKEN: z.string().min(16, "GATEWAY_METRICS_TOKEN must be at least 16 characters").optional(),
  /** `public` turns `GET /metrics` on without authentication; `off` (the default) leaves it to the token. */
  GATEWAY_METRICS: z.enum(["off", "public"]).default("off"),
  GATEWAY_QUIET: z
    .enum(["0", "1", "true", "false"])
    .default("false")
    .transform((value) => value === "1" || value === "true"),
});

export type GatewayConfig = z.infer<typeof ConfigSchema>;

/** Parses the environment once. This is the only reader of `process.env` in the gateway. */
export function loadConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  // An empty variable means "not set", as in most shells' `VAR= command`.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = ConfigSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid gateway configuration:\n  ${problems.join("\n  ")}`);
  }
  return parsed.data;
}

/** Builds a config for tests and embedders: defaults plus the given overrides. */
export function configWith(overrides: Partial<GatewayConfig> = {}): GatewayConfig {
  return { ...loadConfig({}), ...overrides };
}
