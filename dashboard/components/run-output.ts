import { html } from "../lib/html.ts";
import { int, ms } from "../lib/format.ts";
import { href } from "../lib/route.ts";
import type { RunResult } from "../lib/run.ts";
import { ErrorBox, StatusPill } from "./ui.ts";

/** A run as it streams in, then what it took: status, model, timings, tokens, its log. */
export function RunOutput({ text, running, result, label }: { text: string; running: boolean; result: RunResult | null; label: string }) {
  const usage = result?.usage;
  return html`<div class="run-output" data-testid=${`output-${label}`} aria-busy=${running ? "true" : "false"}>
    <pre class="answer" aria-live="polite" aria-label=${`Answer ${label}`}>${text || (running ? "…" : html`<span class="muted">Not run yet.</span>`)}</pre>
    ${result?.error ? html`<${ErrorBox} error=${result.error} />` : null}
    ${result?.status && !running
      ? html`<div class="run-facts muted small-text" data-testid=${`facts-${label}`}>
          ${result.status ? html`<${StatusPill} status=${result.status} />` : null}
          ${result.model ? html`<span class="mono">${result.model}</span>` : null}
          ${result.provider ? html`<span>via ${result.provider}</span>` : null}
          ${result.firstTokenMs !== null ? html`<span>first token ${ms(result.firstTokenMs)}</span>` : null}
          <span>total ${ms(result.totalMs)}</span>
          ${usage ? html`<span>${int(usage.prompt_tokens)} in · ${int(usage.completion_tokens)} out tokens</span>` : null}
          ${result.logId ? html`<a href=${href(`/logs/${result.logId}`)}>log</a>` : null}
        </div>`
      : null}
  </div>`;
}
