/**
 * Reading a provider's own cost and usage reports, by UTC day and model.
 *
 * - OpenAI (https://platform.openai.com/docs/api-reference/usage): `GET /v1/organization/costs`
 *   (`start_time`/`end_time` in Unix seconds, `bucket_width=1d`, `group_by=line_item`, optional
 *   `project_ids`), whose buckets hold `results` of `{amount: {value, currency}, line_item}` in
 *   USD; and `GET /v1/organization/usage/completions` (`group_by=model`, optional `project_ids`
 *   and `api_key_ids`), whose results hold `input_tokens` (cached ones included) and
 *   `output_tokens`. Both page with `has_more` and `next_page` (sent back as `page`), and are
 *   read with an organization admin key as `Authorization: Bearer`.
 * - Anthropic (https://docs.anthropic.com/en/api/admin-api/usage-cost): `GET
 *   /v1/organizations/usage_report/messages` (`starting_at`/`ending_at` RFC 3339, `bucket_width=1d`,
 *   `group_by[]=model`, optional `api_key_ids[]` and `workspace_ids[]`), whose results hold
 *   `uncached_input_tokens`, `cache_creation` (`ephemeral_5m_input_tokens`,
 *   `ephemeral_1h_input_tokens`), `cache_read_input_tokens` and `output_tokens`; and `GET
 *   /v1/organizations/cost_report` (`group_by[]=description` and `workspace_id`), whose results
 *   hold `amount`, a decimal string in cents, with `model` and `workspace_id`. Both page with
 *   `has_more` and `next_page` (sent back as `page`), read with an Admin API key as `x-api-key`
 *   and `anthropic-version: 2023-06-01`.
 */

/** One UTC day and model of a provider's report. */
export interface ProviderRow {
  date: string;
  model: string;
  /** Null when the report gave tokens for the day and model but no cost. */
  costUsd: number | null;
  inputTokens: number;
  outputTokens: number;
}

/** Where and how a key's reports are read. */
export interface ReportSource {
  provider: "openai" | "anthropic";
  adminKey: string;
  baseUrl: string;
  projectId: string | null;
  apiKeyId: string | null;
  providerWorkspaceId: string | null;
}

/** GETs a URL with headers and answers its JSON; rejects with a message (never the key) when the report cannot be read. */
export type FetchReport = (url: string, headers: Record<string, string>) => Promise<unknown>;

/** The provider's own base URL when a key names none. */
export const DEFAULT_REPORT_BASE_URLS: Record<ReportSource["provider"], string> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
};

/** Pages read of one report at most (a month of days is one or two). */
const MAX_PAGES = 50;
const DAY_MS = 86_400_000;

/**
 * The model a report or a log names, as both are compared: lowercase, without a provider's
 * `provider/` prefix and without a snapshot's date suffix (`-2024-08-06`, `-20250514`), so the
 * model a client asked for (`gpt-4o`) meets the snapshot the provider bills (`gpt-4o-2024-08-06`).
 */
export function comparedModel(model: string | null | undefined): string {
  if (!model) return "(unknown)";
  return model
    .trim()
    .toLowerCase()
    .replace(/^[a-z0-9_-]+\//, "")
    .replace(/-\d{4}-\d{2}-\d{2}$/, "")
    .replace(/-\d{8}$/, "");
}

/** The rows of `[startMs, endMs)` (whole UTC days), costs and tokens merged per day and model. Rejects when a report cannot be read. */
export async function readProviderReport(source: ReportSource, startMs: number, endMs: number, fetchReport: FetchReport): Promise<ProviderRow[]> {
  const rows = new Map<string, ProviderRow>();
  const row = (date: string, model: string): ProviderRow => {
    const key = `${date}\u0000${model}`;
    let found = rows.get(key);
    if (!found) rows.set(key, (found = { date, model, costUsd: null, inputTokens: 0, outputTokens: 0 }));
    return found;
  };
  const addCost = (date: string, model: string, usd: number) => {
    const target = row(date, model);
    target.costUsd = (target.costUsd ?? 0) + usd;
  };
  if (source.provider === "openai") await readOpenAi(source, startMs, endMs, fetchReport, row, addCost);
  else await readAnthropic(source, startMs, endMs, fetchReport, row, addCost);
  return [...rows.values()].sort((a, b) => a.date.localeCompare(b.date) || a.model.localeCompare(b.model));
}

type RowOf = (date: string, model: string) => ProviderRow;
type AddCost = (date: string, model: string, usd: number) => void;

async function readOpenAi(source: ReportSource, startMs: number, endMs: number, fetchReport: FetchReport, row: RowOf, addCost: AddCost): Promise<void> {
  const base = source.baseUrl.replace(/\/+$/, "");
  const headers = { authorization: `Bearer ${source.adminKey}` };
  const range = { start_time: String(Math.floor(startMs / 1000)), end_time: String(Math.floor(endMs / 1000)), bucket_width: "1d", limit: String(Math.ceil((endMs - startMs) / DAY_MS)) };
  const projects = source.projectId ? [["project_ids", source.projectId]] : [];
  for await (const bucket of pages(`${base}/organization/costs`, [...Object.entries(range), ["group_by", "line_item"], ...projects], headers, fetchReport)) {
    const date = dayOf(bucket.start_time);
    for (const result of resultsOf(bucket)) {
      const amount = (result.amount as { value?: unknown } | undefined)?.value;
      const value = typeof amount === "number" ? amount : typeof amount === "string" ? Number(amount) : NaN;
      if (date === null || !Number.isFinite(value)) continue;
      addCost(date, lineItemModel(result.line_item), value);
    }
  }
  const keys = source.apiKeyId ? [["api_key_ids", source.apiKeyId]] : [];
  for await (const bucket of pages(`${base}/organization/usage/completions`, [...Object.entries(range), ["group_by", "model"], ...projects, ...keys], headers, fetchReport)) {
    const date = dayOf(bucket.start_time);
    if (date === null) continue;
    for (const result of resultsOf(bucket)) {
      const target = row(date, comparedModel(stringOr(result.model)));
      target.inputTokens += count(result.input_tokens);
      target.outputTokens += count(result.output_tokens);
    }
  }
}

async function readAnthropic(source: ReportSource, startMs: number, endMs: number, fetchReport: FetchReport, row: RowOf, addCost: AddCost): Promise<void> {
  const base = source.baseUrl.replace(/\/+$/, "");
  const headers = { "x-api-key": source.adminKey, "anthropic-version": "2023-06-01" };
  const range = [
    ["starting_at", new Date(startMs).toISOString()],
    ["ending_at", new Date(endMs).toISOString()],
    ["bucket_width", "1d"],
    ["limit", String(Math.min(31, Math.ceil((endMs - startMs) / DAY_MS)))],
  ];
  const usageFilters = [...(source.apiKeyId ? [["api_key_ids[]", source.apiKeyId]] : []), ...(source.providerWorkspaceId ? [["workspace_ids[]", source.providerWorkspaceId]] : [])];
  for await (const bucket of pages(`${base}/v1/organizations/usage_report/messages`, [...range, ["group_by[]", "model"], ...usageFilters], headers, fetchReport)) {
    const date = dayOf(bucket.starting_at);
    if (date === null) continue;
    for (const result of resultsOf(bucket)) {
      const creation = (result.cache_creation ?? {}) as Record<string, unknown>;
      const target = row(date, comparedModel(stringOr(result.model)));
      target.inputTokens += count(result.uncached_input_tokens) + count(result.cache_read_input_tokens) + count(creation.ephemeral_5m_input_tokens) + count(creation.ephemeral_1h_input_tokens);
      target.outputTokens += count(result.output_tokens);
    }
  }
  for await (const bucket of pages(`${base}/v1/organizations/cost_report`, [...range, ["group_by[]", "description"], ["group_by[]", "workspace_id"]], headers, fetchReport)) {
    const date = dayOf(bucket.starting_at);
    if (date === null) continue;
    for (const result of resultsOf(bucket)) {
      if (source.providerWorkspaceId && result.workspace_id !== source.providerWorkspaceId) continue;
      const cents = typeof result.amount === "string" ? Number(result.amount) : typeof result.amount === "number" ? result.amount : NaN;
      if (!Number.isFinite(cents)) continue;
      addCost(date, result.model ? comparedModel(stringOr(result.model)) : "(other)", cents / 100);
    }
  }
}

type Bucket = Record<string, unknown>;

/** Every bucket of a paged report, following `next_page` while `has_more`. */
async function* pages(url: string, query: string[][], headers: Record<string, string>, fetchReport: FetchReport): AsyncGenerator<Bucket> {
  let page: string | null = null;
  for (let read = 0; read < MAX_PAGES; read++) {
    const params = new URLSearchParams(query.map(([name, value]) => [name!, value!] as [string, string]));
    if (page !== null) params.set("page", page);
    const body = (await fetchReport(`${url}?${params.toString()}`, headers)) as { data?: unknown; has_more?: unknown; next_page?: unknown };
    if (!body || typeof body !== "object" || !Array.isArray(body.data)) throw new Error(`${new URL(url).pathname} answered without its data list`);
    for (const bucket of body.data) if (bucket && typeof bucket === "object") yield bucket as Bucket;
    if (body.has_more !== true || typeof body.next_page !== "string" || body.next_page === "") return;
    page = body.next_page;
  }
}

/** A bucket's results: `results` as the APIs answer, `result` as OpenAI's published schema names it. */
function resultsOf(bucket: Bucket): Record<string, unknown>[] {
  const list = Array.isArray(bucket.results) ? bucket.results : Array.isArray(bucket.result) ? bucket.result : [];
  return list.filter((item): item is Record<string, unknown> => !!item && typeof item === "object");
}

/** The UTC day of a bucket's start (Unix seconds or RFC 3339). */
function dayOf(start: unknown): string | null {
  const ms = typeof start === "number" ? start * 1000 : typeof start === "string" ? Date.parse(start) : NaN;
  return Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 10) : null;
}

/**
 * The model an OpenAI cost line item names: its text before the last `, ` (`gpt-4o-2024-08-06,
 * input` and `…, output` are both `gpt-4o`); a line item naming no model is `(other)`.
 */
function lineItemModel(lineItem: unknown): string {
  if (typeof lineItem !== "string" || lineItem.trim() === "") return "(other)";
  const comma = lineItem.lastIndexOf(", ");
  return comparedModel(comma > 0 ? lineItem.slice(0, comma) : lineItem);
}

function stringOr(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}
