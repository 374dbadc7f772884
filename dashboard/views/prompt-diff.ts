import { useEffect, useState } from "preact/hooks";
import { html } from "../lib/html.ts";
import { api } from "../lib/api.ts";
import type { PromptDiff, PromptVersion } from "../lib/types.ts";
import { pretty } from "../components/json-view.ts";
import { ErrorBox, Loading, Panel } from "../components/ui.ts";

const STATUS_CLASS = { same: "neutral", changed: "warn", added: "ok", removed: "bad" } as const;
const LINE_MARK = { equal: " ", delete: "-", insert: "+" } as const;
const LINE_CLASS = { equal: "", delete: "removed", insert: "added" } as const;

const shown = (value: unknown): string => (value === null || value === undefined ? "—" : typeof value === "string" ? value : pretty(value));

/** What changed between two versions of a prompt, as the gateway's diff answers it. */
export function PromptDiffPanel({ promptId, versions, from, to, onPick }: {
  promptId: string;
  versions: PromptVersion[];
  from: number;
  to: number;
  onPick: (from: number, to: number) => void;
}) {
  const [diff, setDiff] = useState<PromptDiff | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setDiff(null);
    setError(null);
    api<PromptDiff>(`/v1/prompts/${promptId}/versions/${from}/diff/${to}`).then(setDiff, setError);
  }, [promptId, from, to, versions.length]);
  const select = (side: "from" | "to", value: number) => html`<div class="field">
    <label for=${`diff-${side}`}>${side === "from" ? "From" : "To"}</label>
    <select id=${`diff-${side}`} value=${String(value)} onChange=${(event: Event) => {
      const picked = Number((event.target as HTMLSelectElement).value);
      onPick(side === "from" ? picked : from, side === "to" ? picked : to);
    }}>
      ${versions.map((version) => html`<option value=${String(version.version)} selected=${version.version === value}>v${version.version}${version.labels.length ? ` (${version.labels.join(", ")})` : ""}</option>`)}
    </select>
  </div>`;
  const unchanged = diff && diff.fields.length === 0 && diff.messages.every((message) => message.status === "same");
  return html`<${Panel} title="Versions compared" id="prompt-diff-title">
    <div class="filter-row">${select("from", from)}${select("to", to)}</div>
    <${ErrorBox} error=${error} />
    ${!diff && !error ? html`<${Loading} />` : null}
    ${unchanged ? html`<p class="muted">v${from} and v${to} are the same.</p>` : null}
    ${diff && diff.fields.length > 0
      ? html`<table class="compact diff-fields" data-testid="diff-fields">
          <thead><tr><th>Field</th><th>v${diff.from}</th><th>v${diff.to}</th></tr></thead>
          <tbody>${diff.fields.map((change) => html`<tr><th scope="row" class="mono">${change.field}</th><td class="mono removed-text">${shown(change.from)}</td><td class="mono added-text">${shown(change.to)}</td></tr>`)}</tbody>
        </table>`
      : null}
    ${diff && !unchanged
      ? html`<div class="diff-messages" data-testid="diff-messages">${diff.messages.map(
          (message) => html`<div class="diff-message" data-status=${message.status}>
            <div class="message-head">
              <span class="muted small-text">#${message.index + 1}</span>
              <span class="mono">${message.role.from === message.role.to || message.role.from === null ? message.role.to : message.role.to === null ? message.role.from : `${message.role.from} → ${message.role.to}`}</span>
              <span class=${`pill ${STATUS_CLASS[message.status]}`}>${message.status}</span>
            </div>
            ${message.status === "same"
              ? null
              : html`<pre class="code diff small">${message.lines.map((line) => html`<span class=${LINE_CLASS[line.op]}>${LINE_MARK[line.op]} ${line.text}\n</span>`)}</pre>`}
          </div>`,
        )}</div>`
      : null}
  </${Panel}>`;
}
