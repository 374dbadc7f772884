import { useState } from "preact/hooks";
import { html } from "../lib/html.ts";
import { api } from "../lib/api.ts";
import type { Prompt, PromptVersion } from "../lib/types.ts";
import { ErrorBox, Panel } from "../components/ui.ts";

/**
 * Moves a label (production, staging, any name) to a version, or takes one off (admin). Moving
 * `production` publishes the version; runs that name a label get its version from the next request.
 */
export function LabelsPanel({ prompt, versions, onChanged }: { prompt: Prompt; versions: PromptVersion[]; onChanged: (prompt: Prompt) => void }) {
  const [label, setLabel] = useState("staging");
  const [version, setVersion] = useState(String(versions[0]?.version ?? 1));
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const act = async (work: () => Promise<Prompt>) => {
    setError(null);
    setBusy(true);
    try {
      onChanged(await work());
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const move = (event: Event) => {
    event.preventDefault();
    act(() => api<Prompt>(`/v1/prompts/${prompt.id}/labels/${encodeURIComponent(label.trim())}`, { method: "PUT", body: { version: Number(version) } }));
  };
  const remove = (name: string) => act(() => api<Prompt>(`/v1/prompts/${prompt.id}/labels/${encodeURIComponent(name)}`, { method: "DELETE" }));
  const names = Object.keys(prompt.labels).sort();
  return html`<${Panel} title="Labels" id="labels-title">
    <ul class="label-list" data-testid="labels">
      ${names.map(
        (name) => html`<li data-label=${name}>
          <span class=${`pill ${name === "production" ? "ok" : "info"}`}>${name}</span> on v${prompt.labels[name]}${" "}
          ${name === "production" ? null : html`<button type="button" class="small link" disabled=${busy} onClick=${() => remove(name)} aria-label=${`Take ${name} off`}>take off</button>`}
        </li>`,
      )}
    </ul>
    <form class="filter-row" onSubmit=${move} aria-label="Move a label">
      <div class="field">
        <label for="label-name">Label</label>
        <input id="label-name" list="label-names" required pattern="[A-Za-z0-9][A-Za-z0-9_.\\-]{0,63}" value=${label} onInput=${(event: Event) => setLabel((event.target as HTMLInputElement).value)} />
        <datalist id="label-names">${[...new Set(["production", "staging", ...names])].map((name) => html`<option value=${name} />`)}</datalist>
      </div>
      <div class="field">
        <label for="label-version">Version</label>
        <select id="label-version" value=${version} onChange=${(event: Event) => setVersion((event.target as HTMLSelectElement).value)}>
          ${versions.map((item) => html`<option value=${String(item.version)} selected=${String(item.version) === version}>v${item.version}${item.labels.length ? ` (${item.labels.join(", ")})` : ""}</option>`)}
        </select>
      </div>
      <div class="field buttons"><button type="submit" class="primary" disabled=${busy}>Move label</button></div>
    </form>
    <p class="muted small-text">Moving <strong>production</strong> publishes the version. A run that names a label (<code>?label=staging</code>, a config's <code>prompt_label</code>) gets the version it is on from the next request, on every replica.</p>
    <${ErrorBox} error=${error} />
  </${Panel}>`;
}
