/**
 * The layers of `src/`, top to bottom. A file may import files of its own layer and of any layer
 * below it, never above; within a layer, a path imports another of the same layer only where
 * `uses` says so; no import cycle anywhere, type-only imports included. SQL and the database
 * clients (Kysely, libSQL, pg, ClickHouse) live only in the `store` paths listed in
 * `STORE_PATHS` (`npm run check:layers`, run by `npm run typecheck`). A path ending in `/` is a
 * folder (every file under it), any other path one file; the longest matching path places a
 * file. Every file of `src/` must be placed. `docs/architecture.md` explains the order.
 */
export interface Layer {
  name: string;
  /** What the layer is, for the docs and for the checker's messages. */
  role: string;
  /** Paths relative to `src/`. */
  paths: readonly string[];
  /** For a path of this layer, the other paths of the layer it may import; a path not listed imports none. */
  uses?: Readonly<Record<string, readonly string[]>>;
}

export const LAYERS: readonly Layer[] = [
  {
    name: "entry",
    role: "the Bun, Node and Deno entry points and the composition root, which builds the services and the app",
    paths: ["server/", "gateway.ts", "app.ts"],
    uses: { "server/": ["gateway.ts"], "gateway.ts": ["app.ts"] },
  },
  {
    name: "http",
    role: "Hono glue: one route file per operation and their registration, middleware, the request context, the services bag routes reach through, audit records of admin writes",
    paths: ["routes/", "middleware/", "audit/", "app-env.ts", "app-errors.ts", "deps.ts", "generated/route-modules.gen.ts", "generated/routes.gen.ts", "generated/request-checks.gen.ts"],
    uses: {
      "routes/": ["middleware/", "audit/", "app-env.ts", "app-errors.ts", "deps.ts", "generated/route-modules.gen.ts", "generated/routes.gen.ts", "generated/request-checks.gen.ts"],
      "middleware/": ["app-env.ts", "app-errors.ts"],
      "audit/": ["app-env.ts"],
      "app-errors.ts": ["app-env.ts"],
      "generated/route-modules.gen.ts": ["routes/", "app-env.ts", "deps.ts"],
      "generated/routes.gen.ts": ["middleware/", "generated/request-checks.gen.ts"],
    },
  },
  {
    name: "pipeline",
    role: "the request pipeline (config, candidates, guardrail stage, routing loop, answer and stream relay) and its stages: the answer cache, budgets and rate limits, the Responses family's tool loop and kept responses, prompts, feedback, the MCP client and gateway, webhook events, the run breaker, the bill reconciled, experiments, the gateway's own batches",
    // A family's folder is domain; the two Responses subfolders that call upstreams, MCP servers and the store sit here.
    paths: ["pipeline/", "cache/", "spend/", "families/responses/tool-run/", "families/responses/kept/", "prompts/", "feedback/", "mcp/", "webhooks/", "runs/", "reconcile/", "experiments/", "batches/"],
    uses: {
      "pipeline/": ["cache/", "spend/", "families/responses/tool-run/", "mcp/", "runs/", "experiments/"],
      "families/responses/tool-run/": ["pipeline/", "families/responses/kept/", "mcp/"],
      "families/responses/kept/": ["cache/"],
      "experiments/": ["webhooks/"],
      "runs/": ["spend/"],
      "webhooks/": ["spend/", "runs/"],
      "reconcile/": ["webhooks/"],
      "batches/": ["pipeline/"],
    },
  },
  {
    name: "services",
    role: "what requests and the control plane share: gateway keys, the control plane's rules and read cache, Redis across replicas, telemetry, the request log and its writer",
    paths: ["control-plane/", "shared-state/", "telemetry/", "logging/"],
    uses: { "shared-state/": ["control-plane/"], "telemetry/": ["logging/"] },
  },
  {
    name: "store",
    role: "where data is kept: Kysely repositories, dialects and migrations, and the log store on ClickHouse (loaded only when configured)",
    paths: ["store/", "clickhouse/"],
    uses: { "clickhouse/": ["store/"] },
  },
  {
    name: "domain",
    role: "what the gateway's things are, as data and pure functions: operations and their families (the Responses family's translation to chat and back among them), providers and prices, guardrail checks, the records the store keeps",
    paths: ["operation/", "families/", "families/responses/via-chat/", "providers/", "providers/catalogue.ts", "guardrails/", "records/"],
    uses: {
      "operation/": ["providers/"],
      "families/": ["operation/", "providers/"],
      "families/responses/via-chat/": ["providers/"],
      "providers/": ["providers/catalogue.ts"],
      // The catalogue gives the Responses translation to each provider with chat and no Responses API.
      "providers/catalogue.ts": ["providers/", "families/responses/via-chat/"],
      "guardrails/": ["records/"],
      "records/": ["providers/", "providers/catalogue.ts"],
    },
  },
  { name: "transport", role: "networking (custom-host guard, pinned connections, TLS, the upstream call) and streams (SSE, the stream protocol)", paths: ["net/", "streams/"] },
  {
    name: "floor",
    role: "small helpers that import nothing above them: the error model, the environment, body validation, sealing secrets, analytics arithmetic, the document's generated types",
    paths: ["lib/", "errors.ts", "config.ts", "validation/", "crypto/", "analytics/", "generated/schemas.gen.ts", "generated/openapi.gen.ts", "generated/openapi-document.gen.ts"],
    uses: { "lib/": ["errors.ts"], "analytics/": ["errors.ts", "generated/schemas.gen.ts"], "validation/": ["errors.ts"], "config.ts": ["errors.ts"], "crypto/": ["errors.ts"] },
  },
];

/** The only paths whose files may write SQL or import a database client. */
export const STORE_PATHS: readonly string[] = ["store/", "clickhouse/"];

/** The database clients and query builders: imported only under `STORE_PATHS`. */
export const DATABASE_PACKAGES: readonly string[] = ["kysely", "kysely-libsql", "@libsql/client", "pg", "@clickhouse/client", "chdb"];
