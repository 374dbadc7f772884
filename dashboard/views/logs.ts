import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { html } from "../lib/html.ts";
import { ApiError, api, request, type Query, type Session } from "../lib/api.ts";
import type { Capabilities } from "../lib/capabilities.ts";
import { dash, int, ms, shortTime, time, usd } from "../lib/format.ts";
import { href, navigate } from "../lib/route.ts";
import type { LogList, LogSummary } from "../lib/types.ts";
import { useVirtualKeys } from "../lib/virtual-keys.ts";
import { Empty, ErrorBox, Loading, StatusPill } from "../components/ui.ts";
import { FirstRequest } from "../components/first-request.ts";

interface Filter {
  name: string;
  label: string;
  kind: "text" | "number" | "datetime" | "select";
  options?: [string, string][];
  more?: boolean;
  placeholder?: string;
}

/** Every filter the UI knows; only those `GET /v1/logs` accepts are shown. */
const FILTERS: Filter[] = [
  { name: "user", label: "End user", kind: "text" },
  { name: "model", label: "Model", kind: "text" },
  { name: "provider", label: "Provider", kind: "text" },
  { name: "status_class", label: "Status", kind: "select", options: [["", "Any"], ["2xx", "2xx"], ["4xx", "4xx"], ["5xx", "5xx"]] },
  { name: "success", label: "Outcome", kind: "select", options: [["", "Any"], ["true", "Succeeded"], ["false", "Failed"]] },
  { name: "from", label: "From", kind: "datetime" },
  { name: "to", label: "To", kind: "datetime" },
  { name: "status", label: "Status code", kind: "number", more: true, placeholder: "e.g. 429" },
  { name: "virtual_key_id", label: "Virtual key id", kind: "text", more: true },
  { name: "trace_id", label: "Trace id", kind: "text", more: true },
  { name: "config", label: "Config", kind: "text", more: true },
  { name: "prompt_id", label: "Prompt id", kind: "text", more: true },
  { name: "experiment_id", label: "Experiment id", kind: "text", more: true },
  { name: "experiment_variant", label: "Experiment variant", kind: "text", more: true },
  {
    name: "cache_status",
    label: "Cache",
    kind: "select",
    more: true,
    options: [["", "Any"], ["HIT", "Exact hit"], ["SEMANTIC_HIT", "Semantic hit"], ["MISS", "Miss"], ["REFRESH", "Refresh"], ["DISABLED", "Not cached"]],
  },
  { name: "min_total_tokens", label: "Tokens ≥", kind: "number", more: true },
  { name: "max_total_tokens", label: "Tokens ≤", kind: "number", more: true },
  { name: "min_cost_usd", label: "Cost ≥ (USD)", kind: "number", more: true },
  { name: "max_cost_usd", label: "Cost ≤ (USD)", kind: "number", more: true },
  { name: "min_latency_ms", label: "Latency ≥ (ms)", kind: "number", more: true },
  { name: "max_latency_ms", label: "Latency ≤ (ms)", kind: "number", more: true },
  { name: "min_time_to_first_token_ms", label: "TTFT ≥ (ms)", kind: "number", more: true },
  { name: "max_time_to_first_token_ms", label: "TTFT ≤ (ms)", kind: "number", more: true },
];

const RANGES: [string, number][] = [
  ["15 min", 15 * 60_000],
  ["1 hour", 3_600_000],
  ["24 hours", 86_400_000],
  ["7 days", 7 * 86_400_000],
];

const PAGE = 50;
const TAIL_MS = 2500;

/** The API query of a view: its URL's filters, minus the view's own state. */
export function logQuery(params: URLSearchParams): Query {
  const query: Query = {};
  params.forEach((value, name) => {
    if (name !== "live" && value !== "") query[name] = value;
  });
  return query;
}

function toLocalInput(iso: string | null): string {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

function metadataPair(params: URLSearchParams): [string, string] {
  for (const [name, value] of params) {
    const match = /^metadata\[(.*)\]$/.exec(name);
    if (match) return [match[1] ?? "", value];
  }
  return ["", ""];
}

function FilterBar({ params, capabilities, onApply }: { params: URLSearchParams; capabilities: Capabilities; onApply: (next: URLSearchParams) => void }) {
  const available = FILTERS.filter((filter) => capabilities.logFilters.has(filter.name));
  const [showMore, setShowMore] = useState(available.some((filter) => filter.more && params.get(filter.name)) || metadataPair(params)[0] !== "");
  const [metaKey, metaValue] = metadataPair(params);
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const next = new URLSearchParams();
    for (const filter of available) {
      const raw = String(form.get(filter.name) ?? "").trim();
      if (!raw) continue;
      next.set(filter.name, filter.kind === "datetime" ? new Date(raw).toISOString() : raw);
    }
    const key = String(form.get("metadata_key") ?? "").trim();
    if (key && capabilities.logFilters.has("metadata")) next.set(`metadata[${key}]`, String(form.get("metadata_value") ?? ""));
    if (params.get("live")) next.set("live", "1");
    onApply(next);
  };
  const field = (filter: Filter) => {
    const id = `filter-${filter.name}`;
    const value = params.get(filter.name) ?? "";
    let input;
    if (filter.kind === "select") {
      input = html`<select id=${id} name=${filter.name} value=${value}>${filter.options!.map(([option, label]) => html`<option value=${option} selected=${option === value}>${label}</option>`)}</select>`;
    } else if (filter.kind === "datetime") {
      input = html`<input id=${id} name=${filter.name} type="datetime-local" value=${toLocalInput(value)} />`;
    } else {
      input = html`<input id=${id} name=${filter.name} type=${filter.kind === "number" ? "number" : "search"} step="any" value=${value} placeholder=${filter.placeholder ?? ""} />`;
    }
    return html`<div class="field" key=${filter.name}><label for=${id}>${filter.label}</label>${input}</div>`;
  };
  const setRange = (span: number) => {
    const next = new URLSearchParams(params);
    next.set("from", new Date(Date.now() - span).toISOString());
    next.delete("to");
    onApply(next);
  };
  return html`<form class="filters" onSubmit=${submit} aria-label="Log filters" key=${params.toString()}>
    <div class="filter-row">
      ${available.filter((filter) => !filter.more).map(field)}
    </div>
    <div class="filter-foot">
      <div class="quick-ranges" role="group" aria-label="Time range">
        <span class="muted">Last</span>
        ${RANGES.map(([label, span]) => html`<button type="button" class="small" onClick=${() => setRange(span)}>${label}</button>`)}
        <button type="button" class="link small-text" aria-expanded=${showMore} onClick=${() => setShowMore(!showMore)}>${showMore ? "Fewer filters" : "More filters"}</button>
      </div>
      <div class="actions">
        <button type="button" onClick=${() => onApply(new URLSearchParams(params.get("live") ? { live: "1" } : {}))}>Clear</button>
        <button type="submit" class="primary">Apply</button>
      </div>
    </div>
    ${showMore
      ? html`<div class="filter-row more">
          ${available.filter((filter) => filter.more).map(field)}
          ${capabilities.logFilters.has("metadata")
            ? html`<div class="field"><label for="filter-metadata-key">Metadata key</label><input id="filter-metadata-key" name="metadata_key" type="search" value=${metaKey} /></div>
                <div class="field"><label for="filter-metadata-value">Metadata value</label><input id="filter-metadata-value" name="metadata_value" type="search" value=${metaValue} /></div>`
            : null}
        </div>`
      : null}
  </form>`;
}

async function download(format: "csv" | "jsonl", params: URLSearchParams): Promise<void> {
  const response = await request("/v1/logs/export", { query: { ...logQuery(params), format } });
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = `gateway-logs-${new Date().toISOString().replace(/[:.]/g, "-")}.${format}`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function LogsView({ params, capabilities, session }: { params: URLSearchParams; capabilities: Capabilities; session: Session }) {
  const [rows, setRows] = useState<LogSummary[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  const [exportError, setExportError] = useState<unknown>(null);
  const virtualKeys = useVirtualKeys(session);
  const vkNames = useMemo(() => new Map(virtualKeys.map((key) => [key.id, key.name])), [virtualKeys]);
  const key = params.toString();
  const query = useMemo(() => logQuery(params), [key]);
  const live = params.get("live") === "1";
  const rowsRef = useRef<LogSummary[] | null>(null);
  rowsRef.current = rows;

  useEffect(() => {
    let cancelled = false;
    setRows(null);
    setError(null);
    api<LogList>("/v1/logs", { query: { ...query, limit: PAGE } }).then(
      (page) => {
        if (cancelled) return;
        setRows(page.data);
        setCursor(page.has_more ? (page.next_cursor ?? null) : null);
      },
      (failure) => !cancelled && setError(failure),
    );
    return () => {
      cancelled = true;
    };
  }, [key]);

  useEffect(() => {
    if (!live) return;
    const timer = setInterval(async () => {
      try {
        const page = await api<LogList>("/v1/logs", { query: { ...query, limit: PAGE } });
        const current = rowsRef.current ?? [];
        const known = new Set(current.map((row) => row.id));
        const added = page.data.filter((row) => !known.has(row.id));
        if (added.length) {
          setRows([...added, ...current]);
          setFresh(new Set(added.map((row) => row.id)));
        }
      } catch (failure) {
        setError(failure);
      }
    }, TAIL_MS);
    return () => clearInterval(timer);
  }, [key, live]);

  const more = async () => {
    if (!cursor) return;
    setLoadingMore(true);
    try {
      const page = await api<LogList>("/v1/logs", { query: { ...query, limit: PAGE, cursor } });
      setRows([...(rows ?? []), ...page.data]);
      setCursor(page.has_more ? (page.next_cursor ?? null) : null);
    } catch (failure) {
      setError(failure);
    } finally {
      setLoadingMore(false);
    }
  };

  const toggleLive = () => {
    const next = new URLSearchParams(params);
    if (live) next.delete("live");
    else next.set("live", "1");
    navigate("/logs", next, true);
  };

  const exportAs = (format: "csv" | "jsonl") => {
    setExportError(null);
    download(format, params).catch(setExportError);
  };

  const badFilter = error instanceof ApiError && error.status === 400;
  return html`<div class="page">
    <header class="page-head">
      <h1>Logs</h1>
      <div class="actions">
        <button type="button" class=${live ? "live on" : "live"} aria-pressed=${live} onClick=${toggleLive}>
          <span class="dot" aria-hidden="true"></span>${live ? "Live tail on" : "Live tail"}
        </button>
        ${capabilities.export
          ? html`<button type="button" onClick=${() => exportAs("csv")}>Export CSV</button><button type="button" onClick=${() => exportAs("jsonl")}>Export JSONL</button>`
          : null}
      </div>
    </header>
    <${FilterBar} params=${params} capabilities=${capabilities} onApply=${(next: URLSearchParams) => navigate("/logs", next)} />
    <${ErrorBox} error=${exportError} />
    ${error ? html`<${ErrorBox} error=${badFilter ? new ApiError(`A filter was refused: ${(error as Error).message}`, 400) : error} />` : null}
    ${rows === null && !error ? html`<${Loading} />` : null}
    ${rows && rows.length === 0 && Object.keys(query).length === 0 ? html`<${FirstRequest} origin=${location.origin} />` : null}
    ${rows && rows.length === 0 && Object.keys(query).length > 0
      ? html`<${Empty}>No requests match these filters${live ? " yet — new ones appear here as they arrive" : ""}.</${Empty}>`
      : null}
    ${rows && rows.length > 0
      ? html`<div class="table-wrap">
          <table class="logs" data-testid="logs-table">
            <thead>
              <tr>
                <th scope="col">Time</th><th scope="col">Status</th><th scope="col">Provider</th><th scope="col">Model</th>
                <th scope="col">Virtual key</th><th scope="col">End user</th><th scope="col" class="num">Tokens</th>
                <th scope="col" class="num">Cost</th><th scope="col" class="num">Latency</th><th scope="col" class="num">TTFT</th>
                <th scope="col">Cache</th><th scope="col">Trace</th>
              </tr>
            </thead>
            <tbody>
              ${rows.map(
                (row) => html`<tr key=${row.id} class=${fresh.has(row.id) ? "fresh" : ""} onClick=${(event: MouseEvent) => {
                  if ((event.target as HTMLElement).closest("a, button")) return;
                  navigate(`/logs/${row.id}`);
                }}>
                  <td class="nowrap"><a href=${href(`/logs/${row.id}`)} title=${time(row.created_at)}>${shortTime(row.created_at)}</a></td>
                  <td><${StatusPill} status=${row.status} />${row.stream ? html` <span class="tag" title="streamed">stream</span>` : null}${row.route === "mcp" ? html` <span class="tag" title=${`MCP ${row.method} through the MCP gateway`}>tool</span>` : null}</td>
                  <td>${row.provider ?? dash}</td>
                  <td class="model" title=${row.model ?? ""}>${row.model ?? dash}</td>
                  <td title=${row.virtual_key_id ?? ""}>${row.virtual_key_id ? (vkNames.get(row.virtual_key_id) ?? row.virtual_key_id.slice(0, 8)) : dash}</td>
                  <td>${row.user ?? dash}</td>
                  <td class="num">${row.usage.total_tokens ? int(row.usage.total_tokens) : dash}</td>
                  <td class="num">${usd(row.cost_usd)}</td>
                  <td class="num">${ms(row.latency_ms)}</td>
                  <td class="num">${ms(row.time_to_first_token_ms)}</td>
                  <td>${capabilities.cacheStatus && row.cache_status ? html`<span class="tag">${row.cache_status}</span>` : dash}</td>
                  <td class="nowrap"><a href=${href(`/traces/${row.trace_id}`)} title=${row.trace_id}>${row.span_name ?? row.trace_id.slice(0, 8)}</a></td>
                </tr>`,
              )}
            </tbody>
          </table>
        </div>
        <div class="pager">
          <span class="muted" data-testid="row-count">${rows.length} request${rows.length === 1 ? "" : "s"} shown</span>
          ${cursor ? html`<button type="button" onClick=${more} disabled=${loadingMore}>${loadingMore ? "Loading…" : "Load more"}</button>` : html`<span class="muted">End of list</span>`}
        </div>`
      : null}
  </div>`;
}
