import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local server that answers OpenAI's organization cost and usage endpoints and Anthropic's
 * Admin API usage and cost reports in their documented formats, from the rows a test gives it:
 * daily buckets, `results` per bucket, `has_more`/`next_page` paging (one day per page, so
 * reading a range takes several pages), the filters each API documents, and each one's
 * authentication (a `Bearer` admin key; `x-api-key` with `anthropic-version`).
 */

/** One day's billing of one model, as the provider would report it. */
export interface BilledRow {
  /** `YYYY-MM-DD`. */
  date: string;
  /** As the provider names it: the snapshot (`gpt-4o-2024-08-06`, `claude-sonnet-4-20250514`). */
  model: string;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  /** OpenAI: the project; Anthropic: the workspace. */
  project?: string;
  apiKeyId?: string;
}

export interface BillingServer {
  url: string;
  /** Every request: method, path and query, and the headers that authenticate it. */
  requests: { path: string; query: URLSearchParams; authorization?: string; apiKey?: string; version?: string }[];
  openai: BilledRow[];
  anthropic: BilledRow[];
  /** Answers every request with this status instead (a failing provider). */
  failWith: number | null;
  close(): Promise<void>;
}

const DAY_S = 86_400;

export async function startBillingServer(keys: { openai: string; anthropic: string }): Promise<BillingServer> {
  const state: BillingServer = { url: "", requests: [], openai: [], anthropic: [], failWith: null, close: async () => {} };
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    state.requests.push({
      path: url.pathname,
      query: url.searchParams,
      authorization: header(request, "authorization"),
      apiKey: header(request, "x-api-key"),
      version: header(request, "anthropic-version"),
    });
    const send = (status: number, body: unknown) => response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (state.failWith !== null) return send(state.failWith, { error: { message: "failing on purpose" } });
    if (url.pathname.startsWith("/v1/organization/")) {
      if (header(request, "authorization") !== `Bearer ${keys.openai}`) return send(401, { error: { message: "Invalid admin key", type: "invalid_request_error" } });
      if (url.pathname === "/v1/organization/costs") return send(200, openAiCosts(state.openai, url.searchParams));
      if (url.pathname === "/v1/organization/usage/completions") return send(200, openAiUsage(state.openai, url.searchParams));
    }
    if (url.pathname.startsWith("/v1/organizations/")) {
      if (header(request, "x-api-key") !== keys.anthropic || header(request, "anthropic-version") !== "2023-06-01") {
        return send(401, { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } });
      }
      if (url.pathname === "/v1/organizations/usage_report/messages") return send(200, anthropicUsage(state.anthropic, url.searchParams));
      if (url.pathname === "/v1/organizations/cost_report") return send(200, anthropicCosts(state.anthropic, url.searchParams));
    }
    send(404, { error: { message: "not found" } });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  state.url = `http://127.0.0.1:${port}`;
  state.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === "string" ? value : undefined;
}

/** The day buckets of a range, one per page: `page` is the index of the day to answer. */
function paged<T>(days: string[], page: string | null, bucket: (day: string) => T): { data: T[]; has_more: boolean; next_page: string | null } {
  const index = page === null ? 0 : Number(page);
  const day = days[index];
  const more = index + 1 < days.length;
  return { data: day === undefined ? [] : [bucket(day)], has_more: more, next_page: more ? String(index + 1) : null };
}

function daysOf(startMs: number, endMs: number): string[] {
  const days: string[] = [];
  for (let ms = startMs; ms < endMs; ms += DAY_S * 1000) days.push(new Date(ms).toISOString().slice(0, 10));
  return days;
}

/** `GET /v1/organization/costs?start_time&end_time&bucket_width=1d&group_by=line_item&project_ids`: costs in USD, per line item `<model>, input` and `<model>, output`. */
function openAiCosts(rows: BilledRow[], query: URLSearchParams) {
  const days = daysOf(Number(query.get("start_time")) * 1000, Number(query.get("end_time") ?? Date.now() / 1000) * 1000);
  const projects = query.getAll("project_ids");
  const byLineItem = query.getAll("group_by").includes("line_item");
  const page = paged(days, query.get("page"), (day) => {
    const start = Date.parse(`${day}T00:00:00Z`) / 1000;
    const kept = rows.filter((row) => row.date === day && (projects.length === 0 || projects.includes(row.project ?? "")));
    const results = byLineItem
      ? kept.flatMap((row) => [
          { object: "organization.costs.result", amount: { value: row.costUsd * 0.4, currency: "usd" }, line_item: `${row.model}, input`, project_id: null },
          { object: "organization.costs.result", amount: { value: row.costUsd * 0.6, currency: "usd" }, line_item: `${row.model}, output`, project_id: null },
        ])
      : [{ object: "organization.costs.result", amount: { value: kept.reduce((sum, row) => sum + row.costUsd, 0), currency: "usd" }, line_item: null, project_id: null }];
    return { object: "bucket", start_time: start, end_time: start + DAY_S, results };
  });
  return { object: "page", ...page };
}

/** `GET /v1/organization/usage/completions?…&group_by=model&project_ids&api_key_ids`: tokens per model. */
function openAiUsage(rows: BilledRow[], query: URLSearchParams) {
  const days = daysOf(Number(query.get("start_time")) * 1000, Number(query.get("end_time") ?? Date.now() / 1000) * 1000);
  const projects = query.getAll("project_ids");
  const keys = query.getAll("api_key_ids");
  const page = paged(days, query.get("page"), (day) => {
    const start = Date.parse(`${day}T00:00:00Z`) / 1000;
    const kept = rows.filter((row) => row.date === day && (projects.length === 0 || projects.includes(row.project ?? "")) && (keys.length === 0 || keys.includes(row.apiKeyId ?? "")));
    return {
      object: "bucket",
      start_time: start,
      end_time: start + DAY_S,
      results: kept.map((row) => ({
        object: "organization.usage.completions.result",
        input_tokens: row.inputTokens,
        output_tokens: row.outputTokens,
        input_cached_tokens: 0,
        input_audio_tokens: 0,
        output_audio_tokens: 0,
        num_model_requests: 1,
        project_id: null,
        user_id: null,
        api_key_id: null,
        model: row.model,
        batch: null,
      })),
    };
  });
  return { object: "page", ...page };
}

/** `GET /v1/organizations/usage_report/messages?starting_at&ending_at&bucket_width=1d&group_by[]=model&api_key_ids[]&workspace_ids[]`. */
function anthropicUsage(rows: BilledRow[], query: URLSearchParams) {
  const days = daysOf(Date.parse(query.get("starting_at") ?? ""), Date.parse(query.get("ending_at") ?? new Date().toISOString()));
  const keys = query.getAll("api_key_ids[]");
  const workspaces = query.getAll("workspace_ids[]");
  return paged(days, query.get("page"), (day) => ({
    starting_at: `${day}T00:00:00Z`,
    ending_at: new Date(Date.parse(`${day}T00:00:00Z`) + DAY_S * 1000).toISOString().replace(".000", ""),
    results: rows
      .filter((row) => row.date === day && (keys.length === 0 || keys.includes(row.apiKeyId ?? "")) && (workspaces.length === 0 || workspaces.includes(row.project ?? "")))
      .map((row) => ({
        // The input tokens split as Anthropic reports them: uncached, read from and written to the cache.
        uncached_input_tokens: row.inputTokens - 3,
        cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 2 },
        cache_read_input_tokens: 1,
        output_tokens: row.outputTokens,
        server_tool_use: { web_search_requests: 0 },
        api_key_id: null,
        workspace_id: null,
        model: row.model,
        service_tier: null,
        context_window: null,
      })),
  }));
}

/** `GET /v1/organizations/cost_report?starting_at&ending_at&group_by[]=description&group_by[]=workspace_id`: amounts in cents as decimal strings. */
function anthropicCosts(rows: BilledRow[], query: URLSearchParams) {
  const days = daysOf(Date.parse(query.get("starting_at") ?? ""), Date.parse(query.get("ending_at") ?? new Date().toISOString()));
  const byDescription = query.getAll("group_by[]").includes("description");
  const byWorkspace = query.getAll("group_by[]").includes("workspace_id");
  return paged(days, query.get("page"), (day) => ({
    starting_at: `${day}T00:00:00Z`,
    ending_at: new Date(Date.parse(`${day}T00:00:00Z`) + DAY_S * 1000).toISOString().replace(".000", ""),
    results: rows
      .filter((row) => row.date === day)
      .flatMap((row) =>
        (["uncached_input_tokens", "output_tokens"] as const).map((tokenType) => ({
          currency: "USD",
          amount: String(Math.round(row.costUsd * (tokenType === "output_tokens" ? 0.7 : 0.3) * 100 * 1e6) / 1e6),
          workspace_id: byWorkspace ? (row.project ?? null) : null,
          description: byDescription ? `${row.model} Usage - ${tokenType === "output_tokens" ? "Output" : "Input"} Tokens` : null,
          cost_type: byDescription ? "tokens" : null,
          context_window: byDescription ? "0-200k" : null,
          model: byDescription ? row.model : null,
          service_tier: byDescription ? "standard" : null,
          token_type: byDescription ? tokenType : null,
          inference_geo: null,
        })),
      ),
  }));
}
