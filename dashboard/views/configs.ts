import { useEffect, useState } from "preact/hooks";
import { html } from "../lib/html.ts";
import { api } from "../lib/api.ts";
import { time } from "../lib/format.ts";
import { href, navigate } from "../lib/route.ts";
import type { List } from "../lib/types.ts";
import { JsonEditor } from "../components/json-editor.ts";
import { pretty } from "../components/json-view.ts";
import { CopyButton, Empty, ErrorBox, Loading, Panel } from "../components/ui.ts";

interface ConfigVersion {
  id: string;
  name: string;
  slug: string;
  is_default: 0 | 1;
  config: string;
  version_id: string;
  created_at: string;
  last_updated_at: string;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Two versions of a config side by side; lines that differ are marked. */
function Versions({ slug, params }: { slug: string; params: URLSearchParams }) {
  const [versions, setVersions] = useState<ConfigVersion[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setVersions(null);
    api<List<ConfigVersion>>(`/v1/configs/${encodeURIComponent(slug)}/versions`).then((list) => setVersions(list.data), setError);
  }, [slug]);
  if (error) return html`<${ErrorBox} error=${error} />`;
  if (!versions) return html`<${Loading} />`;
  const number = (version: ConfigVersion) => versions.length - versions.indexOf(version);
  const left = versions.find((version) => version.version_id === params.get("left")) ?? versions[1] ?? versions[0]!;
  const right = versions.find((version) => version.version_id === params.get("right")) ?? versions[0]!;
  const pick = (side: "left" | "right") => (event: Event) => {
    const next = new URLSearchParams(params);
    next.set(side, (event.target as HTMLSelectElement).value);
    navigate("/configs", next, true);
  };
  const leftLines = pretty(parsed(left.config)).split("\n");
  const rightLines = pretty(parsed(right.config)).split("\n");
  const column = (side: "left" | "right", chosen: ConfigVersion, lines: string[], other: string[]) => html`<div class="version-col">
    <div class="field"><label for=${`version-${side}`}>${side === "left" ? "Older" : "Newer"}</label>
      <select id=${`version-${side}`} value=${chosen.version_id} onChange=${pick(side)}>
        ${versions.map((version) => html`<option value=${version.version_id} selected=${version.version_id === chosen.version_id}>v${number(version)} · ${time(version.created_at)}</option>`)}
      </select>
    </div>
    <pre class="code diff" data-testid=${`version-${side}`}>${lines.map((line, index) => html`<span class=${other[index] === line ? "" : side === "left" ? "removed" : "added"}>${line}\n</span>`)}</pre>
    <${CopyButton} text=${pretty(parsed(chosen.config))} />
  </div>`;
  return html`<${Panel} title=${`${versions.length} version${versions.length === 1 ? "" : "s"} of ${right.name}`} id="versions" actions=${html`<a href=${href("/configs")}>Close</a>`}>
    <div class="versions">${column("left", left, leftLines, rightLines)}${column("right", right, rightLines, leftLines)}</div>
  </${Panel}>`;
}

/** Configs (admin): routing configs, every update a new version. */
export function ConfigsView({ params }: { params: URLSearchParams }) {
  const [configs, setConfigs] = useState<ConfigVersion[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [editing, setEditing] = useState<ConfigVersion | "new" | null>(null);
  const load = () => api<List<ConfigVersion>>("/v1/configs").then((list) => setConfigs(list.data), setError);
  useEffect(() => {
    load();
  }, []);
  const remove = async (config: ConfigVersion) => {
    if (!confirm(`Delete the config “${config.name}” and all its versions?`)) return;
    setError(null);
    try {
      await api(`/v1/configs/${config.slug}`, { method: "DELETE" });
      await load();
    } catch (failure) {
      setError(failure);
    }
  };
  const save = async (body: unknown) => {
    if (editing === "new") await api("/v1/configs", { method: "POST", body });
    else if (editing) await api(`/v1/configs/${editing.slug}`, { method: "PUT", body });
    setEditing(null);
    await load();
  };
  const slug = params.get("slug");
  return html`<div class="page">
    <header class="page-head"><h1>Configs</h1><div class="actions"><button type="button" class="primary" onClick=${() => setEditing("new")}>New config</button></div></header>
    ${editing
      ? html`<${JsonEditor}
          key=${editing === "new" ? "new" : editing.slug}
          title=${editing === "new" ? "New config" : `Edit ${editing.name} (saves a new version)`}
          initial=${editing === "new"
            ? { name: "fallback", config: { strategy: { mode: "fallback" }, targets: [{ provider: "openai" }, { provider: "groq" }] }, is_default: false }
            : { name: editing.name, config: parsed(editing.config), is_default: editing.is_default === 1 }}
          submitLabel=${editing === "new" ? "Create" : "Save new version"}
          onSubmit=${save}
          onCancel=${() => setEditing(null)}
        />`
      : null}
    <${ErrorBox} error=${error} />
    ${slug ? html`<${Versions} slug=${slug} params=${params} />` : null}
    ${configs === null && !error ? html`<${Loading} />` : null}
    ${configs && configs.length === 0 ? html`<${Empty}>No configs yet. A config routes requests: fallbacks, load balancing, retries, cache, guardrails.</${Empty}>` : null}
    ${configs && configs.length > 0
      ? html`<div class="table-wrap"><table class="logs">
          <thead><tr><th>Name</th><th>Slug</th><th>Default</th><th>Updated</th><th><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>${configs.map(
            (config) => html`<tr>
              <td><a href=${href("/logs", { config: config.slug })} title="Its requests">${config.name}</a></td><td class="mono">${config.slug}</td>
              <td>${config.is_default ? html`<span class="pill info">default</span>` : "—"}</td><td>${time(config.last_updated_at)}</td>
              <td class="right nowrap">
                <a class="button small" href=${href("/configs", { slug: config.slug })}>Versions</a>
                <button type="button" class="small" onClick=${() => setEditing(config)}>Edit</button>
                <button type="button" class="small danger" onClick=${() => remove(config)}>Delete</button>
              </td>
            </tr>`,
          )}</tbody>
        </table></div>`
      : null}
  </div>`;
}
