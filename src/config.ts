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
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .meta({ limits: `${min} to ${max}` });
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

/**
 * What the configuration reference (`docs/configuration.md`, written by `npm run codegen`) says of
 * a variable: what it does, and, where the schema cannot say it, its default and limits.
 */
export interface SettingDoc {
  doc: string;
  /** The default as the reference shows it; absent: read from the parsed defaults. */
  shownDefault?: string;
  /** The accepted values or range. */
  limits?: string;
}

const documented = <T extends z.ZodType>(schema: T, doc: SettingDoc): T => schema.meta({ ...doc }) as T;

const yesNo = z
  .enum(["0", "1", "true", "false"])
  .default("false")
  .transform((value) => value === "1" || value === "true");

const ConfigSchema = z.object({
  PORT: documented(wholeNumber(8787, 0, 65535), { doc: "the port the gateway listens on (`0`: any free port)" }),
  HOST: documented(z.string().default("0.0.0.0"), {
    doc: "the address the gateway listens on. `0.0.0.0` is every network interface, and the start-up banner then says the gateway is reachable from other machines; `127.0.0.1` keeps it to this machine",
  }),
  GATEWAY_DATABASE_URL: documented(z.string().default("file:./data/gateway.db"), { doc: "embedded SQLite file, or `postgres://…` for PostgreSQL" }),
  GATEWAY_ADMIN_KEY: documented(z.string().min(16, "GATEWAY_ADMIN_KEY must be at least 16 characters").optional(), {
    doc: "accepted as an admin key of the default organisation and workspace; without it, and with no key stored, the first start creates an admin key and prints it once",
    limits: "at least 16 characters",
  }),
  GATEWAY_ENCRYPTION_KEY: documented(z.string().optional(), {
    doc: "32 bytes (base64 or hex) that encrypt stored upstream secrets; without it a key is generated once in `GATEWAY_DATA_DIR/encryption.key` (mode 600). `new,old` rotates the key: see [Rotating the encryption key](security.md#rotating-the-encryption-key)",
  }),
  GATEWAY_DATA_DIR: documented(z.string().default("./data"), { doc: "where the generated encryption key lives (and, by default, the log spool)" }),
  GATEWAY_CONTROL_PLANE_CACHE_TTL_MS: documented(wholeNumber(60_000, 1, ONE_DAY_MS), {
    doc: "how long configs, virtual keys, guardrails and prompts are cached per instance (writes on this instance apply at once)",
  }),
  GATEWAY_TRUSTED_CUSTOM_HOSTS: documented(csv, { doc: "comma-separated hosts (`host` or `host:port`) allowed as custom hosts", shownDefault: "—" }),
  GATEWAY_ALLOW_PUBLIC_CUSTOM_HOSTS: documented(yesNo, {
    doc: "also allow unlisted custom hosts (and webhook URLs) whose DNS answers are all public addresses. Connections go only to the addresses that were checked, so a name that answers differently at connect time (DNS rebinding) reaches no private address (see [Security](security.md))",
    limits: "`true`, `false`, `1`, `0`",
  }),
  GATEWAY_REQUEST_TIMEOUT_MS: documented(wholeNumber(600_000, 1, MAX_REQUEST_TIMEOUT_MS), {
    doc: "default upstream timeout; its upper bound (one hour) is also the bound of the `x-gateway-request-timeout` header and of a config's `request_timeout`",
  }),
  GATEWAY_MAX_BODY_BYTES: documented(wholeNumber(32 * 1024 * 1024, 1, MAX_BYTES), {
    doc: "larger JSON bodies (`application/json`, `application/*+json`), read whole and parsed, get 413",
  }),
  GATEWAY_MAX_UPLOAD_BYTES: documented(wholeNumber(512 * 1024 * 1024, 1, MAX_BYTES), {
    doc: 'larger bodies of any other type (multipart uploads, binary bodies, passed upstream as they arrive) get 413 and the upstream request is cut off; 512 MiB is the upstream\'s own largest file (see [HTTP limits](operations.md#http-limits))',
  }),
  GATEWAY_MAX_LOGGED_BODY_BYTES: documented(wholeNumber(1024 * 1024, 0, MAX_BYTES), {
    doc: "the most the log keeps of each request and response body; a longer body is stored cut, flagged, with its full size (`0` keeps none)",
  }),
  GATEWAY_MAX_RESPONSE_BUFFER_BYTES: documented(wholeNumber(32 * 1024 * 1024, 1, MAX_BYTES), {
    doc: "the largest upstream answer the gateway holds whole to run guardrails on it; larger ones get 502. Also the largest single event of a relayed stream (an event is held whole until it ends): a larger one ends the stream with `event: error`",
  }),
  GATEWAY_HEADERS_TIMEOUT_MS: documented(wholeNumber(10_000, 1_000, MAX_REQUEST_TIMEOUT_MS), {
    doc: "under Node, a request's line and headers must arrive within this (`server.headersTimeout`), else 408 and the connection closed; Bun's own limit is about 10 s, fixed, which the default matches; Deno has none (no effect there)",
  }),
  GATEWAY_BODY_TIMEOUT_MS: documented(wholeNumber(300_000, 1_000, MAX_REQUEST_TIMEOUT_MS), {
    doc: "a JSON body must arrive whole within this, counted from its headers (408, connection closed), on every runtime; under Node also `server.requestTimeout`, the limit for any request's headers and body together (an upload's too)",
  }),
  GATEWAY_IDLE_TIMEOUT_S: documented(wholeNumber(75, 1, 255), {
    doc: "seconds a keep-alive connection may sit idle between requests before it is closed (255 is Bun's maximum); no effect under Deno, whose server keeps it open",
  }),
  GATEWAY_STREAM_STALL_TIMEOUT_MS: documented(wholeNumber(60_000, 100, MAX_REQUEST_TIMEOUT_MS), {
    doc: "a client that takes none of a streamed answer for this long, while the gateway has some for it, is cut off: the upstream call is aborted and the request logged 499 `client_closed`",
  }),
  GATEWAY_MCP_MAX_ROUNDS: documented(wholeNumber(5, 1, 50), {
    doc: "a tool run the gateway drives (Responses `mcp` tools): model rounds at most; the last is asked to answer without tools (see [Tools](tools.md))",
  }),
  GATEWAY_MCP_CALL_TIMEOUT_MS: documented(wholeNumber(30_000, 100, MAX_REQUEST_TIMEOUT_MS), {
    doc: "each step of an MCP session: connecting (an older server's wait for its event stream's endpoint included), each page of its tool listing, one tool call, closing",
  }),
  GATEWAY_MCP_RUN_TIMEOUT_MS: documented(wholeNumber(300_000, 100, MAX_REQUEST_TIMEOUT_MS), {
    doc: "a whole tool run, from its first connection to its answer: every step of its sessions ends with it (408 past it)",
  }),
  GATEWAY_MCP_MAX_RESULT_BYTES: documented(wholeNumber(64 * 1024, 256, MAX_BYTES), {
    doc: "a tool's result as the model gets it: a longer one is cut as it is read, with a note saying so; any longer string of an MCP server's answer is cut as it is read",
  }),
  GATEWAY_MCP_MAX_MESSAGE_BYTES: documented(wholeNumber(4 * 1024 * 1024, 64 * 1024, MAX_BYTES), {
    doc: "one message of an MCP server (a JSON answer, or one event of its stream) once its long strings are cut: a longer one fails the step with an error saying so",
  }),
  GATEWAY_MCP_MAX_TOOLS: documented(wholeNumber(128, 1, 10_000), {
    doc: "tools offered to the model in one request, over all its MCP servers: listing stops there, and `mcp_list_tools.error` says where it was cut",
  }),
  GATEWAY_MCP_MAX_TOOLS_BYTES: documented(wholeNumber(256 * 1024, 1024, MAX_BYTES), {
    doc: "the size (as JSON) of the tools offered to the model in one request, cut as `GATEWAY_MCP_MAX_TOOLS` is",
  }),
  GATEWAY_MCP_MAX_CALLS_PER_ROUND: documented(wholeNumber(16, 1, 1000), {
    doc: "tool calls of one model round that are run (or sent for approval); the model is told the others were not run",
  }),
  GATEWAY_MCP_MAX_SERVERS: documented(wholeNumber(16, 1, 1000), {
    doc: "`mcp` tools (MCP servers) one request may name; more is a 400 naming `tools`",
  }),
  GATEWAY_LOG_FLUSH_INTERVAL_MS: documented(wholeNumber(250, 1, MAX_REQUEST_TIMEOUT_MS), { doc: "log batching: how long records wait before a batch is written" }),
  GATEWAY_LOG_BATCH_SIZE: documented(wholeNumber(200, 1, 100_000), { doc: "log batching: this many records waiting start a write at once" }),
  GATEWAY_LOG_MAX_BATCH_SIZE: documented(wholeNumber(5000, 1, 100_000), {
    doc: "log batching: the most records one write takes; records that arrive during a write go in the next, at once when they are a batch's worth (else at the interval), up to this, so batches grow with the load (never below `GATEWAY_LOG_BATCH_SIZE`)",
  }),
  GATEWAY_LOG_SPOOL_DIR: documented(z.string().optional(), {
    doc: "where log batches wait while the store is down, an append-only file per process (see [When the store is down](logs.md#when-the-store-is-down))",
    shownDefault: "`<GATEWAY_DATA_DIR>/log-spool`",
  }),
  GATEWAY_LOG_SPOOL_MAX_BYTES: documented(wholeNumber(1024 * 1024 * 1024, 0, MAX_BYTES), {
    doc: "the spool's size limit; past it, records wait in memory (bounded), then are dropped and counted. `0` turns the spool off (records then wait in memory only)",
  }),
  GATEWAY_LOG_RETENTION_DAYS: documented(
    z
      .string()
      .regex(/^[0-9]+$/, "must be written in decimal digits only")
      .optional()
      .transform((value) => (value === undefined ? undefined : Number(value)))
      .pipe(z.number().int().min(1, "must be at least 1").max(36_500, "must be at most 36500").optional()),
    { doc: "logs older than this many days are deleted, with their rollups, by a timer (see [Analytics](logs.md#analytics)); on PostgreSQL and ClickHouse a whole day at once, once all of it is that old; unset keeps them forever", limits: "1 to 36500" },
  ),
  GATEWAY_SHUTDOWN_TIMEOUT_MS: documented(wholeNumber(30_000, 1, MAX_REQUEST_TIMEOUT_MS), { doc: "how long SIGTERM waits for in-flight requests" }),
  GATEWAY_KEY_CACHE_TTL_MS: documented(wholeNumber(60_000, 1, ONE_DAY_MS), { doc: "how long a key lookup is cached (revocation on this instance is immediate)" }),
  GATEWAY_CACHE_MAX_ENTRIES: documented(wholeNumber(10_000, 1, 10_000_000), {
    doc: "the in-memory answer cache (without `GATEWAY_REDIS_URL`) holds at most this many answers (see [Cache](cache.md)); least recently used answers go first",
  }),
  GATEWAY_CACHE_MAX_BYTES: documented(wholeNumber(256 * 1024 * 1024, 1, MAX_BYTES), { doc: "…and at most this many bytes in all" }),
  GATEWAY_CACHE_MAX_ENTRY_BYTES: documented(wholeNumber(4 * 1024 * 1024, 1, MAX_BYTES), { doc: "a larger answer is served but not cached (in memory or Redis)" }),
  GATEWAY_SEMANTIC_CACHE_MAX_ENTRIES: documented(wholeNumber(10_000, 1, 10_000_000), {
    doc: "the semantic cache's bound per workspace in each replica's memory, in entries; the least recently used partition's oldest entries go first (see [Cache](cache.md))",
  }),
  GATEWAY_SEMANTIC_CACHE_MAX_BYTES: documented(wholeNumber(256 * 1024 * 1024, 1, MAX_BYTES), {
    doc: "the semantic cache's bound per workspace in each replica's memory, in bytes (answers, vectors, their links, and about 52 KiB for each partition's index); the least recently used partition's oldest entries go first",
  }),
  GATEWAY_SEMANTIC_CACHE_MAX_PARTITIONS: documented(wholeNumber(1_000, 1, 1_000_000), {
    doc: "the semantic cache's bound per workspace in each replica's memory, in partitions (one per namespace, model and embedding target); a request that would need another is served uncached by meaning and its log says why",
  }),
  GATEWAY_SEMANTIC_CACHE_EMBEDDING_TIMEOUT_MS: documented(wholeNumber(300, 1, 60_000), {
    doc: "how long a semantic lookup's embedding call may take; past it, or when it fails, the request goes on uncached and its log says why",
  }),
  UPSTREAM_MTLS_KEY_PATH: documented(z.string().optional(), {
    doc: "client key (PEM) presented to the upstream, read once at start (see [Mutual TLS to the upstream](providers.md#mutual-tls-to-the-upstream)); with `UPSTREAM_MTLS_CERT_PATH`, both or neither",
  }),
  UPSTREAM_MTLS_CERT_PATH: documented(z.string().optional(), { doc: "client certificate (PEM) presented to the upstream; with `UPSTREAM_MTLS_KEY_PATH`" }),
  UPSTREAM_MTLS_CA_PATH: documented(z.string().optional(), {
    doc: "CA (PEM) the upstream's server certificate is checked against, in place of the system's; only with the two above",
  }),
  GATEWAY_LOG_STORE_URL: documented(
    z
      .string()
      .regex(/^https?:\/\//, "must be an http:// or https:// URL")
      .optional(),
    {
      doc: "`http(s)://user:password@host:port/database`: request logs, analytics and feedback in ClickHouse (its HTTP interface), created and migrated at start; the control plane stays in `GATEWAY_DATABASE_URL`. Unset: logs in the main store. See [ClickHouse](clickhouse.md)",
    },
  ),
  GATEWAY_REDIS_URL: documented(
    z
      .string()
      .regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL")
      .optional(),
    {
      doc: "`redis://…` or `rediss://…`: state shared by every replica: rate-limit counters and spend reservations, the answer cache, circuit breakers, and control-plane invalidations (a change on one replica applies on the others at once); awaited up to 2 s at start. Unset: all of it in process",
    },
  ),
  GATEWAY_REDIS_FAILURE_POLICY: documented(z.enum(["open", "closed"]).default("open"), {
    doc: "while Redis is away: `open` keeps serving with each process's own limits and circuits (a line in the gateway's log says so), `closed` refuses metered requests with 503; the cache always serves misses",
    limits: "`open`, `closed`",
  }),
  GATEWAY_SPEND_DEFAULT_MAX_TOKENS: documented(wholeNumber(4096, 1, 10_000_000), {
    doc: "the completion tokens a budget reserves for a request that sets no `max_completion_tokens`/`max_tokens`/`max_output_tokens` (see [Budgets and rate limits](budgets-and-limits.md))",
  }),
  GATEWAY_SPEND_FLUSH_INTERVAL_MS: documented(wholeNumber(1000, 1, ONE_DAY_MS), { doc: "how often each replica writes settled spend to the store (`key_spend`), in one batch" }),
  GATEWAY_WEBHOOK_TIMEOUT_MS: documented(wholeNumber(10_000, 100, 120_000), {
    doc: "one webhook delivery attempt: a receiver that has not answered a 2xx by then has failed it (see [Budgets and rate limits](budgets-and-limits.md#webhooks))",
  }),
  GATEWAY_WEBHOOK_MAX_ATTEMPTS: documented(wholeNumber(8, 1, 50), { doc: "attempts of one webhook delivery before it is marked `failed`" }),
  GATEWAY_WEBHOOK_RETRY_BASE_MS: documented(wholeNumber(10_000, 10, ONE_DAY_MS), {
    doc: "the wait before a failed webhook delivery's second attempt; each later wait is three times the one before, at most six hours",
  }),
  GATEWAY_WEBHOOK_POLL_INTERVAL_MS: documented(wholeNumber(1000, 10, 60_000), {
    doc: "how often each replica looks for webhook deliveries that are due (retries, and events another replica queued)",
  }),
  GATEWAY_EXPERIMENT_GUARD_INTERVAL_MS: documented(wholeNumber(30_000, 100, ONE_DAY_MS), {
    doc: "how often each replica checks the guards of every running experiment, whatever logs arrive (see [Experiments](experiments.md#guards-and-rollback))",
  }),
  GATEWAY_EXPERIMENT_GUARD_MIN_INTERVAL_MS: documented(wholeNumber(1000, 0, ONE_DAY_MS), {
    doc: "the least time between two checks of one experiment's guards that the logs a replica stores set off",
  }),
  OTEL_EXPORTER_OTLP_ENDPOINT: documented(httpUrl.optional(), { doc: "OTLP/HTTP collector base URL (`/v1/traces` appended); unset, and without a traces endpoint, no span is made", limits: "an http(s) URL" }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: documented(httpUrl.optional(), { doc: "the traces URL itself, used as it is; wins over the base URL", limits: "an http(s) URL" }),
  OTEL_EXPORTER_OTLP_HEADERS: documented(otlpHeaders, { doc: "headers sent to the collector: `key=value,…`, values percent-encoded", shownDefault: "—" }),
  OTEL_SERVICE_NAME: documented(z.string().default("ai-gateway"), { doc: "the spans' `service.name`" }),
  GATEWAY_METRICS_TOKEN: documented(z.string().min(16, "GATEWAY_METRICS_TOKEN must be at least 16 characters").optional(), {
    doc: "turns `GET /metrics` on behind `Authorization: Bearer <token>`",
    limits: "at least 16 characters",
  }),
  GATEWAY_METRICS: documented(z.enum(["off", "public"]).default("off"), { doc: "`public` turns `GET /metrics` on without authentication; `off` leaves it to the token", limits: "`off`, `public`" }),
  GATEWAY_QUIET: documented(yesNo, { doc: "no start-up banner (a first start's admin key is printed all the same)", limits: "`true`, `false`, `1`, `0`" }),
});

export type GatewayConfig = z.infer<typeof ConfigSchema>;

/** Every variable the gateway reads, with its documentation, in the schema's order (for `docs/configuration.md`). */
export function settingDocs(): { name: string; doc: SettingDoc; parsedDefault: unknown }[] {
  const defaults = loadConfig({}) as Record<string, unknown>;
  return Object.entries(ConfigSchema.shape).map(([name, schema]) => {
    const doc = (schema as z.ZodType).meta() as SettingDoc | undefined;
    if (!doc?.doc) throw new Error(`${name} in src/config.ts has no documentation (documented(…, { doc }))`);
    return { name, doc, parsedDefault: defaults[name] };
  });
}

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
