import { useEffect, useState } from "preact/hooks";
import { html } from "../lib/html.ts";
import { api } from "../lib/api.ts";
import { time } from "../lib/format.ts";
import { href, navigate } from "../lib/route.ts";
import type { Prompt, PromptList } from "../lib/types.ts";
import { JsonEditor } from "../components/json-editor.ts";
import { Empty, ErrorBox, Loading } from "../components/ui.ts";

const NEW_PROMPT = {
  name: "greeting",
  model: "gpt-4o-mini",
  provider: "openai",
  messages: [
    { role: "system", content: "You are brief." },
    { role: "user", content: "Say hello to {{name}}." },
  ],
  hyperparameters: { temperature: 0.2 },
};

/** A prompt's labels, `production` first, each with the version it is on. */
export function LabelPills({ labels }: { labels: Record<string, number> }) {
  const names = Object.keys(labels).sort((a, b) => (a === "production" ? -1 : b === "production" ? 1 : a.localeCompare(b)));
  return html`<span class="labels">${names.map((name) => html`<span class=${`pill ${name === "production" ? "ok" : "info"}`} data-label=${name}>${name} v${labels[name]}</span>`)}</span>`;
}

/** Prompts: the workspace's templates with their labels; each opens in the playground. */
export function PromptsView({ admin }: { admin: boolean }) {
  const [prompts, setPrompts] = useState<Prompt[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [creating, setCreating] = useState(false);
  const load = () => api<PromptList>("/v1/prompts").then((list) => setPrompts(list.data), setError);
  useEffect(() => {
    load();
  }, []);
  const create = async (body: unknown) => {
    const created = await api<Prompt>("/v1/prompts", { method: "POST", body });
    navigate(`/prompts/${created.id}`);
  };
  const remove = async (prompt: Prompt) => {
    if (!confirm(`Delete the prompt “${prompt.name}” and all its versions?`)) return;
    setError(null);
    try {
      await api(`/v1/prompts/${prompt.id}`, { method: "DELETE" });
      await load();
    } catch (failure) {
      setError(failure);
    }
  };
  return html`<div class="page">
    <header class="page-head">
      <h1>Prompts</h1>
      <div class="actions">${admin ? html`<button type="button" class="primary" onClick=${() => setCreating(true)}>New prompt</button>` : html`<span class="pill neutral">read-only</span>`}</div>
    </header>
    ${creating ? html`<${JsonEditor} title="New prompt" initial=${NEW_PROMPT} submitLabel="Create" onSubmit=${create} onCancel=${() => setCreating(false)} />` : null}
    <${ErrorBox} error=${error} />
    ${prompts === null && !error ? html`<${Loading} />` : null}
    ${prompts && prompts.length === 0 ? html`<${Empty}>No prompts yet. A prompt is a template of chat messages with {{variables}}, run by id; each edit is a new version.</${Empty}>` : null}
    ${prompts && prompts.length > 0
      ? html`<div class="table-wrap"><table class="logs" data-testid="prompts">
          <thead><tr><th>Name</th><th>Model</th><th>Provider / virtual key</th><th>Labels</th><th>Versions</th><th>Variables</th><th>Updated</th><th><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>${prompts.map(
            (prompt) => html`<tr data-prompt=${prompt.id} onClick=${(event: Event) => (event.target as Element).closest("a, button") || navigate(`/prompts/${prompt.id}`)}>
              <td><a href=${href(`/prompts/${prompt.id}`)}>${prompt.name}</a></td>
              <td class="model">${prompt.model}</td>
              <td class="mono">${prompt.virtual_key ? `@${prompt.virtual_key}` : (prompt.provider ?? "—")}</td>
              <td><${LabelPills} labels=${prompt.labels} /></td>
              <td>${prompt.versions_count}</td>
              <td>${prompt.variables.join(", ") || "—"}</td>
              <td class="nowrap">${time(prompt.updated_at)}</td>
              <td class="right nowrap">
                <a class="button small" href=${href("/logs", { prompt_id: prompt.id })}>Requests</a>
                ${admin ? html` <button type="button" class="small danger" onClick=${() => remove(prompt)}>Delete</button>` : null}
              </td>
            </tr>`,
          )}</tbody>
        </table></div>`
      : null}
  </div>`;
}
