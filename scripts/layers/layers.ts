/**
 * The layers of `src/`, top to bottom. A file may import files of its own layer and of any layer
 * below it, never above; no import cycle anywhere, type-only imports included
 * (`npm run check:layers`, run by `npm run typecheck`). A path ending in `/` is a folder (every
 * file under it), any other path one file; the longest matching path places a file. Every file
 * of `src/` must be placed. `docs/architecture.md` explains the order.
 */
export interface Layer {
  name: string;
  /** What the layer is, for the docs and for the checker's messages. */
  role: string;
  /** Paths relative to `src/`. */
  paths: readonly string[];
}

export const LAYERS: readonly Layer[] = [
  { name: "entry", role: "the Bun and Node entry points", paths: ["server/"] },
  { name: "app", role: "the composition root: builds the services and the app", paths: ["gateway.ts", "app.ts"] },
  {
    name: "http",
    role: "Hono glue: one route file per operation and their registration, middleware, the request context, the services bag routes reach through, audit records of admin writes",
    paths: [
      "routes/",
      "middleware/",
      "audit/",
      "app-env.ts",
      "app-errors.ts",
      "deps.ts",
      "generated/route-modules.gen.ts",
      "generated/routes.gen.ts",
      "generated/body-validators.gen.ts",
    ],
  },
  { name: "pipeline", role: "the request pipeline: config, candidates, guardrail stage, routing loop, answer and stream relay", paths: ["pipeline/"] },
  {
    name: "stages",
    role: "what the pipeline runs besides the upstream call: the answer cache, budgets and rate limits, kept responses, prompts, feedback, the MCP client, webhook events, the run breaker, the bill reconciled",
    paths: ["cache/", "spend/", "responses/", "prompts/", "feedback/", "mcp/", "webhooks/", "runs/", "reconcile/"],
  },
  { name: "shared-state", role: "Redis shared across replicas, and the invalidations it carries", paths: ["shared-state/"] },
  { name: "control-plane", role: "gateway keys and the control plane's rules: sealing secrets, views, limits, the read cache", paths: ["auth/", "control-plane/"] },
  { name: "telemetry", role: "OpenTelemetry spans and Prometheus metrics, fed by finished log entries", paths: ["telemetry/"] },
  { name: "logging", role: "the request log, its writer, spool and sinks, and how answers are read for it", paths: ["logging/"] },
  { name: "guardrails", role: "guardrail checks, pure, and how they run", paths: ["guardrails/"] },
  { name: "clickhouse", role: "the log store on ClickHouse, loaded only when configured", paths: ["clickhouse/"] },
  { name: "store", role: "Kysely repositories, dialects and migrations", paths: ["store/"] },
  { name: "records", role: "the shapes the store keeps: control-plane records, gateway keys, audit events, the log record and its fields", paths: ["records/"] },
  { name: "inbound", role: "client formats the gateway translates (Anthropic Messages), as pure transforms", paths: ["inbound/"] },
  { name: "operation", role: "what a proxied operation is: its descriptor, answer format, target, request body and answer", paths: ["operation/"] },
  { name: "providers", role: "provider folders (data and pure transforms), the catalogue, prices, and pricing answers", paths: ["providers/", "pricing/"] },
  { name: "transport", role: "networking (custom-host guard, pinned connections, TLS, the upstream call) and streams (SSE, the stream protocol, assemblers)", paths: ["net/", "streams/"] },
  { name: "foundations", role: "sealing secrets, body validation, analytics arithmetic", paths: ["crypto/", "validation/", "analytics/"] },
  {
    name: "floor",
    role: "small helpers that import nothing above them, the error model, the environment, the document's generated types",
    paths: ["lib/", "errors.ts", "config.ts", "generated/schemas.gen.ts", "generated/openapi.gen.ts", "generated/openapi-document.gen.ts"],
  },
];
