import { useEffect, useState } from "preact/hooks";
import { html } from "../lib/html.ts";
import { api } from "../lib/api.ts";
import type { Capabilities } from "../lib/capabilities.ts";
import { dash, int, ms, shortTime, time, usd } from "../lib/format.ts";
import { href, navigate } from "../lib/route.ts";
import type { Feedback, FeedbackList, LogList, LogSummary, Run } from "../lib/types.ts";
import { ApiError } from "../lib/api.ts";
import { Empty, ErrorBox, Loading, Panel, StatusPill } from "../components/ui.ts";

interface Span {
  log: LogSummary;
  depth: number;
  start: number;
  end: number;
}

/** Orders a trace's records as a tree: children under their parent span, siblings by start. */
export function spanTree(logs: LogSummary[]): Span[] {
  const bySpan = new Map(logs.filter((log) => log.span_id).map((log) => [log.span_id!, log]));
  const children = new Map<string | null, LogSummary[]>();
  for (const log of logs) {
    const parent = log.parent_span_id && bySpan.has(log.parent_span_id) && log.parent_span_id !== log.span_id ? log.parent_span_id : null;
    children.set(parent, [...(children.get(parent) ?? []), log]);
  }
  const out: Span[] = [];
  const seen = new Set<string>();
  const visit = (parent: string | null, depth: number) => {
    const list = (children.get(parent) ?? []).sort((a, b) => a.created_at.localeCompare(b.created_at));
    for (const log of list) {
      if (seen.has(log.id)) continue;
      seen.add(log.id);
      const start = Date.parse(log.created_at);
      out.push({ log, depth, start, end: start + log.latency_ms });
      if (log.span_id) visit(log.span_id, depth + 1);
    }
  };
  visit(null, 0);
  return out;
}

function Timeline({ spans }: { spans: Span[] }) {
  const start = Math.min(...spans.map((span) => span.start));
  const end = Math.max(...spans.map((span) => span.end));
  const total = Math.max(1, end - start);
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  return html`<div class="timeline" role="list" aria-label="Spans" data-testid="timeline">
    <div class="timeline-axis" aria-hidden="true">
      <span class="timeline-label"></span>
      <span class="timeline-track">${ticks.map((tick) => html`<span class="tick" style=${{ left: `${tick * 100}%` }}>${ms(total * tick)}</span>`)}</span>
    </div>
    ${spans.map((span) => {
      const left = ((span.start - start) / total) * 100;
      const width = Math.max(0.5, ((span.end - span.start) / total) * 100);
      // A tool call through the MCP gateway reads as its JSON-RPC method on its server.
      const label = span.log.span_name ?? (span.log.route === "mcp" ? `${span.log.method} · ${span.log.provider ?? "mcp"}` : span.log.route);
      return html`<a role="listitem" class="span-row" href=${href(`/logs/${span.log.id}`)} data-testid="span" title=${`${label} · ${ms(span.log.latency_ms)} · ${span.log.status}`}>
        <span class="timeline-label" style=${{ paddingLeft: `${span.depth * 16 + 4}px` }}>
          ${span.depth > 0 ? html`<span class="muted" aria-hidden="true">└ </span>` : null}<span class="span-name">${label}</span>
          <span class="muted small-text"> ${span.log.model ?? ""}</span>
        </span>
        <span class="timeline-track">
          <span class=${`bar ${span.log.success ? "ok" : "bad"}`} style=${{ left: `${left}%`, width: `${width}%` }}></span>
          ${left + width > 85
            ? html`<span class="bar-text before" style=${{ right: `${100 - left}%` }}>${ms(span.log.latency_ms)}</span>`
            : html`<span class="bar-text" style=${{ left: `${left + width}%` }}>${ms(span.log.latency_ms)}</span>`}
        </span>
      </a>`;
    })}
  </div>`;
}

function FeedbackPanel({ traceId }: { traceId: string }) {
  const [items, setItems] = useState<Feedback[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [formError, setFormError] = useState<unknown>(null);
  const [value, setValue] = useState("1");
  const [weight, setWeight] = useState("1");
  const [metadata, setMetadata] = useState("");
  const load = () => api<FeedbackList>("/v1/feedback", { query: { trace_id: traceId } }).then((list) => setItems(list.data), setError);
  useEffect(() => {
    load();
  }, [traceId]);
  const submit = async (event: Event) => {
    event.preventDefault();
    setFormError(null);
    try {
      let parsed: Record<string, unknown> = {};
      if (metadata.trim()) parsed = JSON.parse(metadata) as Record<string, unknown>;
      await api("/v1/feedback", { method: "POST", body: { trace_id: traceId, value: Number(value), weight: Number(weight), metadata: parsed } });
      setMetadata("");
      await load();
    } catch (failure) {
      setFormError(failure instanceof SyntaxError ? new Error(`Metadata is not JSON: ${failure.message}`) : failure);
    }
  };
  return html`<${Panel} title="Feedback" id="feedback">
    <${ErrorBox} error=${error} />
    ${items === null && !error ? html`<${Loading} />` : null}
    ${items && items.length === 0 ? html`<${Empty}>No feedback for this trace yet.</${Empty}>` : null}
    ${items && items.length > 0
      ? html`<ul class="feedback-list" data-testid="feedback">${items.map(
          (item) => html`<li>
            <span class=${`score ${item.value > 0 ? "ok" : item.value < 0 ? "bad" : ""}`}>${item.value > 0 ? `+${item.value}` : item.value}</span>
            <span class="muted">weight ${item.weight}</span>
            <span class="muted">${shortTime(item.created_at)}</span>
            ${Object.keys(item.metadata ?? {}).length ? html`<code class="small-text">${JSON.stringify(item.metadata)}</code>` : null}
          </li>`,
        )}</ul>`
      : null}
    <form class="stack" onSubmit=${submit} aria-label="Add feedback">
      <div class="filter-row">
        <div class="field"><label for="feedback-value">Value (−10 to 10)</label><input id="feedback-value" type="number" min="-10" max="10" step="1" required value=${value} onInput=${(event: Event) => setValue((event.target as HTMLInputElement).value)} /></div>
        <div class="field"><label for="feedback-weight">Weight (0 to 1)</label><input id="feedback-weight" type="number" min="0" max="1" step="0.1" required value=${weight} onInput=${(event: Event) => setWeight((event.target as HTMLInputElement).value)} /></div>
      </div>
      <div class="field"><label for="feedback-metadata">Metadata (JSON, optional)</label><input id="feedback-metadata" value=${metadata} placeholder='{"source":"review"}' onInput=${(event: Event) => setMetadata((event.target as HTMLInputElement).value)} /></div>
      <${ErrorBox} error=${formError} />
      <div><button type="submit" class="primary">Add feedback</button></div>
    </form>
  </${Panel}>`;
}

function TraceList() {
  const [logs, setLogs] = useState<LogSummary[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api<LogList>("/v1/logs", { query: { limit: 200 } }).then((list) => setLogs(list.data), setError);
  }, []);
  const submit = (event: Event) => {
    event.preventDefault();
    const id = String(new FormData(event.target as HTMLFormElement).get("trace") ?? "").trim();
    if (id) navigate(`/traces/${id}`);
  };
  const traces = new Map<string, LogSummary[]>();
  for (const log of logs ?? []) traces.set(log.trace_id, [...(traces.get(log.trace_id) ?? []), log]);
  return html`<div class="page">
    <header class="page-head"><h1>Traces</h1>
      <form class="inline" onSubmit=${submit} role="search"><label for="trace-id" class="sr-only">Trace id</label><input id="trace-id" name="trace" placeholder="Trace id" /><button type="submit">Open</button></form>
    </header>
    <${ErrorBox} error=${error} />
    ${logs === null && !error ? html`<${Loading} />` : null}
    ${logs && traces.size === 0 ? html`<${Empty}>No requests yet.</${Empty}>` : null}
    ${traces.size > 0
      ? html`<div class="table-wrap"><table class="logs">
          <thead><tr><th>Started</th><th>Trace</th><th>Root span</th><th class="num">Spans</th><th class="num">Duration</th><th class="num">Tokens</th><th class="num">Cost</th><th>Errors</th></tr></thead>
          <tbody>${[...traces.entries()].map(([id, spans]) => {
            const start = Math.min(...spans.map((span) => Date.parse(span.created_at)));
            const end = Math.max(...spans.map((span) => Date.parse(span.created_at) + span.latency_ms));
            const root = spans.find((span) => !span.parent_span_id) ?? spans[spans.length - 1]!;
            const errors = spans.filter((span) => !span.success).length;
            return html`<tr onClick=${(event: MouseEvent) => !(event.target as HTMLElement).closest("a") && navigate(`/traces/${id}`)}>
              <td class="nowrap">${shortTime(new Date(start).toISOString())}</td>
              <td class="mono"><a href=${href(`/traces/${id}`)}>${id.length > 24 ? `${id.slice(0, 24)}…` : id}</a></td>
              <td>${root.span_name ?? root.route}</td>
              <td class="num">${spans.length}</td>
              <td class="num">${ms(end - start)}</td>
              <td class="num">${int(spans.reduce((sum, span) => sum + span.usage.total_tokens, 0))}</td>
              <td class="num">${usd(spans.reduce((sum, span) => sum + (span.cost_usd ?? 0), 0))}</td>
              <td>${errors ? html`<span class="pill bad">${errors}</span>` : dash}</td>
            </tr>`;
          })}</tbody>
        </table></div>
        <p class="muted">Traces among the latest 200 requests.</p>`
      : null}
  </div>`;
}

const RULE_NAMES: Record<string, string> = {
  max_requests: "requests",
  max_tool_calls: "tool calls",
  max_cost_usd: "cost (USD)",
  max_duration_seconds: "duration (s)",
  repeat_limit: "repeats of one call",
  max_cost_usd_per_minute: "spend per minute (USD)",
};

/** The run's breaker: its counts and, when halted, the rule and figure that stopped it, with a resume button for an admin. */
function RunPanel({ traceId, admin, onResumed }: { traceId: string; admin: boolean; onResumed: () => void }) {
  const [run, setRun] = useState<Run | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = () =>
    api<Run>(`/v1/runs/${encodeURIComponent(traceId)}`).then(setRun, (failure: unknown) => {
      if (!(failure instanceof ApiError && failure.status === 404)) setError(failure);
    });
  useEffect(() => {
    load();
  }, [traceId]);
  const resume = async () => {
    setError(null);
    try {
      setRun(await api<Run>(`/v1/runs/${encodeURIComponent(traceId)}/resume`, { method: "POST" }));
      onResumed();
    } catch (failure) {
      setError(failure);
    }
  };
  if (!run) return html`<${ErrorBox} error=${error} />`;
  const halt = run.halted;
  return html`<div data-testid="run">
    ${halt
      ? html`<div class="error" role="alert" data-testid="run-halted">
          <strong>Run halted</strong> by ${halt.rule}: ${RULE_NAMES[halt.rule] ?? halt.rule} reached ${halt.value} of ${halt.limit}${halt.scope !== "run" ? ` (the ${halt.scope === "key" ? "gateway key" : "end user"}'s)` : ""}, at ${time(halt.halted_at)}. Its requests answer 423 until it is resumed.
          ${admin ? html` <button type="button" class="small" onClick=${resume}>Resume run</button>` : null}
        </div>`
      : null}
    <p class="muted small-text" data-testid="run-counts">Run breaker: ${int(run.requests)} requests, ${int(run.tool_calls)} tool calls, ${usd(run.cost_usd)}${run.started_at ? `, since ${time(run.started_at)}` : ""}.</p>
    <${ErrorBox} error=${error} />
  </div>`;
}

export function TraceView({ traceId, capabilities, admin = false }: { traceId?: string; params: URLSearchParams; capabilities: Capabilities; admin?: boolean }) {
  const [logs, setLogs] = useState<LogSummary[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [reloaded, setReloaded] = useState(0);
  useEffect(() => {
    if (!traceId) return;
    setLogs(null);
    setError(null);
    api<LogList>("/v1/logs", { query: { trace_id: traceId, limit: 200 } }).then((list) => setLogs(list.data), setError);
  }, [traceId, reloaded]);
  if (!traceId) return html`<${TraceList} />`;
  const spans = logs ? spanTree(logs) : [];
  const cost = spans.reduce((sum, span) => sum + (span.log.cost_usd ?? 0), 0);
  const tokens = spans.reduce((sum, span) => sum + span.log.usage.total_tokens, 0);
  return html`<div class="page">
    <header class="page-head">
      <div><p class="crumbs"><a href="#/traces">Traces</a> / <span class="mono">${traceId}</span></p><h1>Trace</h1></div>
      <div class="actions"><a class="button" href=${href("/logs", { trace_id: traceId })}>Show as logs</a></div>
    </header>
    <${ErrorBox} error=${error} />
    <${RunPanel} traceId=${traceId} admin=${admin} onResumed=${() => setReloaded(reloaded + 1)} />
    ${logs === null && !error ? html`<${Loading} />` : null}
    ${logs && logs.length === 0 ? html`<${Empty}>No requests in this trace.</${Empty}>` : null}
    ${spans.length > 0
      ? html`<div class=${capabilities.feedback ? "trace-layout" : ""}>
          <${Panel} title=${`${spans.length} span${spans.length === 1 ? "" : "s"} · ${int(tokens)} tokens · ${usd(cost)}`} id="spans">
            <p class="muted small-text">Started ${time(new Date(Math.min(...spans.map((span) => span.start))).toISOString())}. Bars are placed by start time and latency; select one to open its request.</p>
            <${Timeline} spans=${spans} />
            <table class="compact">
              <thead><tr><th>Span</th><th>Status</th><th>Model</th><th>User</th><th class="num">Tokens</th><th class="num">Cost</th></tr></thead>
              <tbody>${spans.map(
                (span) => html`<tr><td><a href=${href(`/logs/${span.log.id}`)}>${span.log.span_name ?? span.log.span_id ?? span.log.id.slice(0, 8)}</a></td>
                  <td><${StatusPill} status=${span.log.status} /></td><td>${span.log.model ?? dash}</td><td>${span.log.user ?? dash}</td>
                  <td class="num">${int(span.log.usage.total_tokens)}</td><td class="num">${usd(span.log.cost_usd)}</td></tr>`,
              )}</tbody>
            </table>
          </${Panel}>
          ${capabilities.feedback ? html`<${FeedbackPanel} traceId=${traceId} />` : null}
        </div>`
      : null}
  </div>`;
}
