import { useEffect, useMemo, useState } from "preact/hooks";
import { html } from "../lib/html.ts";
import { api, type Query, type Session } from "../lib/api.ts";
import type { Capabilities } from "../lib/capabilities.ts";
import { int, ms, percent, usd } from "../lib/format.ts";
import { href, navigate } from "../lib/route.ts";
import type { Bucket, Group, Groups, ReconciliationRowList, Summary, Timeseries, VirtualKey } from "../lib/types.ts";
import { useVirtualKeys } from "../lib/virtual-keys.ts";
import { Chart, type Series } from "../components/chart.ts";
import { Empty, ErrorBox, Loading, Panel } from "../components/ui.ts";

const RANGES: Record<string, { label: string; span: number; interval: "minute" | "hour" | "day" }> = {
  "1h": { label: "Last hour", span: 3_600_000, interval: "minute" },
  "24h": { label: "Last 24 hours", span: 86_400_000, interval: "hour" },
  "7d": { label: "Last 7 days", span: 7 * 86_400_000, interval: "hour" },
  "30d": { label: "Last 30 days", span: 30 * 86_400_000, interval: "day" },
};

const GROUPS: [string, string][] = [
  ["user", "End user"],
  ["model", "Model"],
  ["provider", "Provider"],
  ["virtual_key_id", "Virtual key"],
];

const FILTERS = ["user", "model", "provider", "virtual_key_id"];

interface Window {
  from: string;
  to: string;
  interval: "minute" | "hour" | "day";
}

function windowOf(params: URLSearchParams): Window {
  const range = RANGES[params.get("range") ?? "24h"] ?? RANGES["24h"]!;
  const to = new Date(Math.ceil(Date.now() / 60_000) * 60_000);
  return { from: new Date(to.getTime() - range.span).toISOString(), to: to.toISOString(), interval: (params.get("interval") as Window["interval"]) || range.interval };
}

function GroupTable({ title, groups, names, testId }: { title: string; groups: Group[] | undefined; names?: Map<string, string>; testId: string }) {
  if (!groups) return html`<${Panel} title=${title}><${Loading} /></${Panel}>`;
  const top = Math.max(...groups.map((group) => group.cost_usd), 0);
  return html`<${Panel} title=${title}>
    ${groups.length === 0
      ? html`<${Empty}>No requests in this range.</${Empty}>`
      : html`<table class="compact" data-testid=${testId}>
          <thead><tr><th>${title.replace(/^By /, "")}</th><th class="num">Requests</th><th class="num">Errors</th><th class="num">Tokens</th><th class="num">Cost</th><th class="num">p95</th></tr></thead>
          <tbody>${groups.map(
            (group) => html`<tr>
              <td class="key">${group.key === null ? html`<span class="muted">(none)</span>` : (names?.get(group.key) ?? group.key)}</td>
              <td class="num">${int(group.requests)}</td>
              <td class="num">${group.errors ? html`<span class="bad-text">${int(group.errors)}</span>` : "0"}</td>
              <td class="num">${int(group.total_tokens)}</td>
              <td class="num"><span class="meter" aria-hidden="true"><span style=${{ width: `${top ? (group.cost_usd / top) * 100 : 0}%` }}></span></span>${usd(group.cost_usd)}</td>
              <td class="num">${ms(group.latency_ms.p95)}</td>
            </tr>`,
          )}</tbody>
        </table>`}
  </${Panel}>`;
}

function Budgets({ keys, spend }: { keys: VirtualKey[]; spend: Group[] | undefined }) {
  const limited = keys.filter((key) => key.budget);
  if (limited.length === 0) return html`<${Panel} title="Budget use"><${Empty}>No virtual key has a credit limit.</${Empty}></${Panel}>`;
  const byId = new Map((spend ?? []).map((group) => [group.key, group.cost_usd]));
  return html`<${Panel} title="Budget use">
    <table class="compact" data-testid="budgets">
      <thead><tr><th>Virtual key</th><th>Period</th><th class="num">Spent (400 days)</th><th class="num">Credit limit</th><th>Use</th></tr></thead>
      <tbody>${limited.map((key) => {
        const spent = byId.get(key.id) ?? 0;
        const share = spent / key.budget!.credit_limit_usd;
        return html`<tr>
          <td>${key.name} <span class="muted mono small-text">${key.slug}</span></td>
          <td>${key.budget!.period ?? "none"}</td>
          <td class="num">${usd(spent)}</td>
          <td class="num">${usd(key.budget!.credit_limit_usd)}</td>
          <td><span class=${`budget ${share >= 1 ? "bad" : share >= 0.8 ? "warn" : "ok"}`} role="meter" aria-valuemin="0" aria-valuemax="100" aria-valuenow=${Math.round(share * 100)} aria-label=${`${key.name} budget use`}><span style=${{ width: `${Math.min(100, share * 100)}%` }}></span></span> ${percent(share)}</td>
        </tr>`;
      })}</tbody>
    </table>
  </${Panel}>`;
}

/** The latest comparison of each virtual key's logged cost with its provider's bill (`GET /v1/reconciliation`), drifted rows first. */
function Drift() {
  const [rows, setRows] = useState<ReconciliationRowList["data"] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api<ReconciliationRowList>("/v1/reconciliation", { query: { limit: 100 } }).then((list) => setRows(list.data), setError);
  }, []);
  const sorted = rows ? [...rows].sort((a, b) => Number(b.drifted) - Number(a.drifted) || b.date.localeCompare(a.date)) : null;
  return html`<${Panel} title="Drift from the providers' bills">
    <${ErrorBox} error=${error} />
    ${sorted && sorted.length === 0 ? html`<${Empty}>No virtual key is reconciled yet: store its provider's usage-reading key (PUT /v1/virtual-keys/{slug}/reconciliation).</${Empty}>` : null}
    ${sorted && sorted.length > 0
      ? html`<table class="compact" data-testid="drift">
          <thead><tr><th>Day</th><th>Virtual key</th><th>Model</th><th class="num">Logged</th><th class="num">Billed</th><th class="num">Drift</th></tr></thead>
          <tbody>${sorted.map(
            (row) => html`<tr class=${row.drifted ? "drifted" : ""} data-drifted=${row.drifted ? "yes" : "no"}>
              <td>${row.date}</td><td class="mono">${row.virtual_key ?? ""}</td><td>${row.model}</td>
              <td class="num">${usd(row.gateway_cost_usd)}</td><td class="num">${usd(row.provider_cost_usd)}</td>
              <td class=${`num ${row.drifted ? "warn-text" : ""}`}>${usd(row.drift_usd)}${row.drift_ratio === null ? "" : ` (${percent(row.drift_ratio)})`}</td>
            </tr>`,
          )}</tbody>
        </table>`
      : null}
  </${Panel}>`;
}

export function AnalyticsView({ params, capabilities, session }: { params: URLSearchParams; capabilities: Capabilities; session: Session }) {
  const [summary, setSummary] = useState<Summary | null>(null);
  const [series, setSeries] = useState<Bucket[] | null>(null);
  const [groups, setGroups] = useState<Record<string, Group[]>>({});
  const [metaGroups, setMetaGroups] = useState<Group[] | undefined>(undefined);
  const [spend, setSpend] = useState<Group[] | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const virtualKeys = useVirtualKeys(session);
  const names = useMemo(() => new Map(virtualKeys.map((key) => [key.id, key.name])), [virtualKeys]);
  const key = params.toString();
  const metadataKey = params.get("metadata_key") ?? "";

  const filters: Query = {};
  for (const name of FILTERS) if (params.get(name)) filters[name] = params.get(name);

  useEffect(() => {
    if (!capabilities.analytics) return;
    const window = windowOf(params);
    const query = { ...filters, from: window.from, to: window.to };
    setError(null);
    setSummary(null);
    setSeries(null);
    setGroups({});
    api<Summary>("/v1/analytics/summary", { query }).then(setSummary, setError);
    api<Timeseries>("/v1/analytics/timeseries", { query: { ...query, interval: window.interval } }).then((list) => setSeries(list.data), setError);
    for (const [by] of GROUPS) {
      api<Groups>("/v1/analytics/groups", { query: { ...query, by, limit: 10 } }).then((list) => setGroups((current) => ({ ...current, [by]: list.data })), setError);
    }
    setMetaGroups(undefined);
    if (metadataKey) api<Groups>("/v1/analytics/groups", { query: { ...query, by: "metadata", metadata_key: metadataKey, limit: 10 } }).then((list) => setMetaGroups(list.data), setError);
  }, [key]);

  useEffect(() => {
    if (!capabilities.analytics || session.role !== "admin") return;
    // The API's longest range (400 days) stands for "all time".
    const to = Date.now() + 60_000;
    api<Groups>("/v1/analytics/groups", { query: { by: "virtual_key_id", from: new Date(to - 399 * 86_400_000).toISOString(), to: new Date(to).toISOString(), limit: 200 } }).then((list) => setSpend(list.data), setError);
  }, [session.role]);

  const charts = useMemo(() => {
    if (!series) return null;
    const times = series.map((bucket) => Date.parse(bucket.start) / 1000);
    const line = (label: string, color: string, values: (number | null)[], format?: (value: number) => string): Series => ({ label, color, values, format });
    return {
      times,
      requests: [line("Requests", "#2563eb", series.map((bucket) => bucket.requests), (value) => int(value)), line("Errors", "#dc2626", series.map((bucket) => bucket.errors), (value) => int(value))],
      cost: [line("Cost", "#7c3aed", series.map((bucket) => bucket.cost_usd), (value) => usd(value))],
      tokens: [line("Tokens", "#0891b2", series.map((bucket) => bucket.total_tokens), (value) => int(value))],
      latency: [
        line("p50", "#16a34a", series.map((bucket) => bucket.latency_ms.p50), (value) => ms(value)),
        line("p95", "#d97706", series.map((bucket) => bucket.latency_ms.p95), (value) => ms(value)),
        line("p99", "#dc2626", series.map((bucket) => bucket.latency_ms.p99), (value) => ms(value)),
      ],
      errorRate: [line("Error rate", "#dc2626", series.map((bucket) => bucket.error_rate), (value) => percent(value))],
    };
  }, [series]);

  if (!capabilities.analytics) {
    return html`<div class="page"><header class="page-head"><h1>Analytics</h1></header>
      <${Empty}>This gateway's API has no analytics routes (<code>/v1/analytics/*</code>). The <a href="#/logs">logs</a> show every request.</${Empty}></div>`;
  }

  const setParam = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    navigate("/analytics", next);
  };
  const applyFilters = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const next = new URLSearchParams(params);
    for (const name of [...FILTERS, "metadata_key"]) {
      const value = String(form.get(name) ?? "").trim();
      if (value) next.set(name, value);
      else next.delete(name);
    }
    navigate("/analytics", next);
  };
  const range = params.get("range") ?? "24h";
  return html`<div class="page">
    <header class="page-head">
      <h1>Analytics</h1>
      <div class="actions" role="group" aria-label="Range">
        ${Object.entries(RANGES).map(([name, value]) => html`<button type="button" class=${name === range ? "small selected" : "small"} aria-pressed=${name === range} onClick=${() => setParam("range", name)}>${value.label}</button>`)}
      </div>
    </header>
    <form class="filters" onSubmit=${applyFilters} key=${key} aria-label="Analytics filters">
      <div class="filter-row">
        ${FILTERS.map((name) => html`<div class="field"><label for=${`analytics-${name}`}>${name.replace(/_/g, " ")}</label><input id=${`analytics-${name}`} name=${name} type="search" value=${params.get(name) ?? ""} /></div>`)}
        <div class="field"><label for="analytics-metadata-key">metadata key</label><input id="analytics-metadata-key" name="metadata_key" type="search" value=${metadataKey} placeholder="e.g. env" /></div>
        <div class="field buttons"><button type="submit" class="primary">Apply</button></div>
      </div>
    </form>
    <${ErrorBox} error=${error} />
    ${summary
      ? html`<div class="stats" data-testid="summary">
          <div class="stat"><span>Requests</span><strong>${int(summary.requests)}</strong></div>
          <div class="stat"><span>Error rate</span><strong>${percent(summary.error_rate)}</strong><small>${int(summary.errors)} error${summary.errors === 1 ? "" : "s"}</small></div>
          <div class="stat"><span>Cost</span><strong>${usd(summary.cost_usd)}</strong></div>
          <div class="stat" data-testid="cache-hits">
            <span>Cache hits</span><strong>${int(summary.cache_hits + summary.semantic_cache_hits)}</strong>
            <small>${int(summary.cache_hits)} exact · ${int(summary.semantic_cache_hits)} semantic · ${usd(summary.cost_saved_usd)} saved</small>
          </div>
          <div class="stat"><span>Tokens</span><strong>${int(summary.total_tokens)}</strong><small>${int(summary.prompt_tokens)} in · ${int(summary.completion_tokens)} out</small></div>
          <div class="stat"><span>Latency p50 / p95 / p99</span><strong>${ms(summary.latency_ms.p50)}</strong><small>${ms(summary.latency_ms.p95)} · ${ms(summary.latency_ms.p99)}</small></div>
          <div class="stat"><span>TTFT p50 / p95</span><strong>${ms(summary.time_to_first_token_ms.p50)}</strong><small>${ms(summary.time_to_first_token_ms.p95)}</small></div>
        </div>`
      : error ? null : html`<${Loading} />`}
    ${charts
      ? html`<div class="charts">
          <${Chart} title="Requests" times=${charts.times} series=${charts.requests} />
          <${Chart} title="Cost (USD)" times=${charts.times} series=${charts.cost} />
          <${Chart} title="Tokens" times=${charts.times} series=${charts.tokens} />
          <${Chart} title="Latency" times=${charts.times} series=${charts.latency} />
          <${Chart} title="Error rate" times=${charts.times} series=${charts.errorRate} />
        </div>`
      : null}
    <div class="grid-2">
      ${GROUPS.map(([by, label]) => html`<${GroupTable} title=${`By ${label.toLowerCase()}`} groups=${groups[by]} names=${by === "virtual_key_id" ? names : undefined} testId=${`group-${by}`} />`)}
      ${metadataKey ? html`<${GroupTable} title=${`By metadata ${metadataKey}`} groups=${metaGroups} testId="group-metadata" />` : null}
      ${session.role === "admin" ? html`<${Budgets} keys=${virtualKeys} spend=${spend} />` : null}
      ${session.role === "admin" ? html`<${Drift} />` : null}
    </div>
    <p class="muted small-text">Every figure is computed by the gateway from its logs. <a href=${href("/logs")}>Open the logs</a> for single requests.</p>
  </div>`;
}
