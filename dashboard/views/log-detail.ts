import { useEffect, useState } from "preact/hooks";
import { html } from "../lib/html.ts";
import { api } from "../lib/api.ts";
import { dash, int, ms, time, usd } from "../lib/format.ts";
import { href } from "../lib/route.ts";
import type { LogRecord } from "../lib/types.ts";
import { JsonView } from "../components/json-view.ts";
import { Empty, ErrorBox, Facts, Loading, Panel, StatusPill } from "../components/ui.ts";

/** Chunk count and timing, when the record keeps them (fields named like `chunks`, `chunk_count`). */
function streamFacts(record: LogRecord): [string, unknown][] {
  const facts: [string, unknown][] = [];
  const response = record.response as Record<string, unknown>;
  const count = response.chunk_count ?? response.chunks ?? (record as unknown as Record<string, unknown>).chunk_count;
  if (typeof count === "number") facts.push(["Chunks", int(count)]);
  facts.push(["Time to first token", ms(record.time_to_first_token_ms)]);
  if (record.time_to_first_token_ms !== null) facts.push(["Streaming time", ms(record.latency_ms - record.time_to_first_token_ms)]);
  return facts;
}

export function LogDetail({ id }: { id: string }) {
  const [record, setRecord] = useState<LogRecord | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setRecord(null);
    setError(null);
    api<LogRecord>(`/v1/logs/${encodeURIComponent(id)}`).then(setRecord, setError);
  }, [id]);

  if (error) return html`<div class="page"><p><a href="#/logs">← Logs</a></p><${ErrorBox} error=${error} /></div>`;
  if (!record) return html`<${Loading} />`;
  const usage = record.usage;
  const perThousand = record.cost_usd !== null && usage.total_tokens > 0 ? record.cost_usd / (usage.total_tokens / 1000) : null;
  const metadata = Object.entries(record.metadata ?? {});
  return html`<div class="page detail">
    <header class="page-head">
      <div>
        <p class="crumbs"><a href="#/logs">Logs</a> / <span class="mono">${record.id}</span></p>
        <h1><${StatusPill} status=${record.status} /> <span>${record.method} ${record.path}</span></h1>
      </div>
      <div class="actions"><a class="button" href=${href(`/traces/${record.trace_id}`)}>Open trace</a></div>
    </header>
    ${record.error ? html`<div class="error" role="alert"><strong>${record.error.code ?? "error"}</strong> ${record.error.message ?? ""}</div>` : null}
    <div class="grid-2">
      <${Panel} title="Request" id="facts-request">
        <${Facts} items=${[
          ["Time", time(record.created_at)],
          ["Route", record.route],
          ["Provider", record.provider ?? dash],
          ["Model", record.model ?? dash],
          ["End user", record.user ?? dash],
          ["Virtual key", record.virtual_key_id ?? dash],
          ["Prompt", record.prompt_id ? html`<a href=${href(`/prompts/${record.prompt_id}`)} class="mono">${record.prompt_id}</a> v${record.prompt_version ?? "?"}` : dash],
          ["Experiment", record.experiment_id ? html`<a href=${href(`/experiments/${record.experiment_id}`)} class="mono">${record.experiment_id}</a> · ${record.experiment_variant ?? "?"}` : dash],
          ["Config", record.config_id ? html`<a href=${href("/logs", { config: record.config_id })} class="mono">${record.config_id}</a> v${record.config_version ?? "?"}` : dash],
          ["Trace", html`<a href=${href(`/traces/${record.trace_id}`)} class="mono">${record.trace_id}</a>`],
          ["Span", record.span_id ? `${record.span_name ?? record.span_id} (${record.span_id})` : dash],
          ["Parent span", record.parent_span_id ?? dash],
          ["Cache", cacheFact(record)],
        ]} />
      </${Panel}>
      <${Panel} title="Cost and timing" id="facts-cost">
        <${Facts} items=${[
          ["Prompt tokens", int(usage.prompt_tokens)],
          ["Completion tokens", int(usage.completion_tokens)],
          ["Cached tokens", int(usage.cached_tokens)],
          ["Reasoning tokens", int(usage.reasoning_tokens)],
          ["Total tokens", int(usage.total_tokens)],
          ["Cost", html`<strong>${usd(record.cost_usd)}</strong>${record.cost_usd === null ? html` <span class="muted">(${record.cost_note ?? "no price known for this model"})</span>` : null}`],
          ...(record.cost_saved_usd === null ? [] : [["Saved by the cache", usd(record.cost_saved_usd)] as [string, unknown]]),
          ["Cost per 1K tokens", perThousand === null ? dash : usd(perThousand)],
          ["Latency", ms(record.latency_ms)],
          ...(record.stream ? streamFacts(record) : [["Streamed", "no"] as [string, unknown]]),
        ]} />
      </${Panel}>
    </div>
    <div class="grid-2">
      <${JsonView} title="Request body" value=${record.request.body} truncated=${record.request.truncated} size=${record.request.size_bytes} />
      <${JsonView}
        title="Response body"
        value=${record.response.body}
        truncated=${record.response.truncated}
        size=${record.response.size_bytes}
        note=${record.stream ? html`<span class="tag">assembled from stream</span>` : null}
      />
    </div>
    <${Panel} title=${`Attempts (${record.attempts.length})`} id="attempts">
      ${record.attempts.length === 0
        ? html`<${Empty}>The gateway answered without calling an upstream.</${Empty}>`
        : html`<table class="compact" data-testid="attempts">
            <thead><tr><th>#</th><th>Target</th><th>Provider</th><th>Model</th><th>Status</th><th class="num">Latency</th><th>Error</th></tr></thead>
            <tbody>${record.attempts.map(
              (attempt, index) => html`<tr>
                <td>${index + 1}</td><td>${attempt.target}</td><td>${attempt.provider}</td><td>${attempt.model ?? dash}</td>
                <td>${attempt.status === null ? html`<span class="pill bad">none</span>` : html`<${StatusPill} status=${attempt.status} />`}</td>
                <td class="num">${ms(attempt.latency_ms)}</td>
                <td>${attempt.error_code ? html`<code>${attempt.error_code}</code> ${attempt.error_message ?? ""}` : dash}</td>
              </tr>`,
            )}</tbody>
          </table>`}
    </${Panel}>
    <div class="grid-2">
      <${Panel} title="Metadata" id="metadata">
        ${metadata.length === 0
          ? html`<${Empty}>No metadata.</${Empty}>`
          : html`<table class="compact"><tbody>${metadata.map(
              ([name, value]) => html`<tr><th scope="row">${name}</th><td><a href=${href("/logs", { [`metadata[${name}]`]: value })}>${value}</a></td></tr>`,
            )}</tbody></table>`}
      </${Panel}>
      <${Panel} title="Guardrails" id="guardrails">
        ${record.guardrail_results.length === 0
          ? html`<${Empty}>No guardrail ran.</${Empty}>`
          : record.guardrail_results.map(
              (result) => html`<div class="guardrail">
                <p><strong>${result.guardrail}</strong> · ${result.stage} · ${result.verdict ? html`<span class="pill ok">passed</span>` : html`<span class="pill bad">failed</span>`} ${result.deny ? html`<span class="tag">deny</span>` : null}</p>
                <pre class="code small">${JSON.stringify(result.checks, null, 2)}</pre>
              </div>`,
            )}
      </${Panel}>
    </div>
  </div>`;
}

/** The cache status, with a hit's similarity and the request it came from, or why a semantic lookup did not run. */
function cacheFact(record: { cache_status: string | null; cache_similarity?: number | null; cache_source_log_id?: string | null; cache_note?: string | null }) {
  if (!record.cache_status) return "—";
  const similarity = record.cache_similarity === null || record.cache_similarity === undefined ? null : ` at similarity ${record.cache_similarity.toFixed(3)}`;
  const source = record.cache_source_log_id ? html` from <a href=${href(`/logs/${record.cache_source_log_id}`)} class="mono">${record.cache_source_log_id}</a>` : null;
  const note = record.cache_note ? html` <span class="muted">(${record.cache_note})</span>` : null;
  return html`${record.cache_status}${similarity}${source}${note}`;
}
