import { useEffect, useState } from "preact/hooks";
import { html } from "../lib/html.ts";
import { api } from "../lib/api.ts";
import { time } from "../lib/format.ts";
import type { List } from "../lib/types.ts";
import { JsonEditor } from "../components/json-editor.ts";
import { Empty, ErrorBox, Loading } from "../components/ui.ts";

type Row = Record<string, unknown> & { name: string; updated_at?: string; created_at: string };

interface Resource {
  title: string;
  singular: string;
  path: string;
  /** The field that names a record in its URL. */
  idField: string;
  columns: [string, (row: Row) => unknown][];
  template: unknown;
  editable: (row: Row) => Record<string, unknown>;
  empty: string;
}

/** A workspace resource managed as JSON: list, create, edit, delete, with the API's errors. */
function ResourceView({ resource, admin }: { resource: Resource; admin: boolean }) {
  const [rows, setRows] = useState<Row[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [editing, setEditing] = useState<Row | "new" | null>(null);
  const load = () => api<List<Row>>(resource.path).then((list) => setRows(list.data), setError);
  useEffect(() => {
    setRows(null);
    setEditing(null);
    load();
  }, [resource.path]);
  const remove = async (row: Row) => {
    if (!confirm(`Delete the ${resource.singular} “${row.name}”?`)) return;
    setError(null);
    try {
      await api(`${resource.path}/${encodeURIComponent(String(row[resource.idField]))}`, { method: "DELETE" });
      await load();
    } catch (failure) {
      setError(failure);
    }
  };
  const save = async (body: unknown) => {
    if (editing === "new") await api(resource.path, { method: "POST", body });
    else if (editing) await api(`${resource.path}/${encodeURIComponent(String(editing[resource.idField]))}`, { method: "PUT", body });
    setEditing(null);
    await load();
  };
  return html`<div class="page">
    <header class="page-head">
      <h1>${resource.title}</h1>
      <div class="actions">${admin ? html`<button type="button" class="primary" onClick=${() => setEditing("new")}>New ${resource.singular}</button>` : html`<span class="pill neutral">read-only</span>`}</div>
    </header>
    ${editing
      ? html`<${JsonEditor}
          key=${editing === "new" ? "new" : String(editing[resource.idField])}
          title=${editing === "new" ? `New ${resource.singular}` : `Edit ${editing.name}`}
          initial=${editing === "new" ? resource.template : resource.editable(editing)}
          submitLabel=${editing === "new" ? "Create" : "Save"}
          onSubmit=${save}
          onCancel=${() => setEditing(null)}
        />`
      : null}
    <${ErrorBox} error=${error} />
    ${rows === null && !error ? html`<${Loading} />` : null}
    ${rows && rows.length === 0 ? html`<${Empty}>${resource.empty}</${Empty}>` : null}
    ${rows && rows.length > 0
      ? html`<div class="table-wrap"><table class="logs">
          <thead><tr>${resource.columns.map(([label]) => html`<th>${label}</th>`)}<th>Updated</th>${admin ? html`<th><span class="sr-only">Actions</span></th>` : null}</tr></thead>
          <tbody>${rows.map(
            (row) => html`<tr>
              ${resource.columns.map(([, cell]) => html`<td>${cell(row)}</td>`)}
              <td class="nowrap">${time(row.updated_at ?? row.created_at)}</td>
              ${admin ? html`<td class="right nowrap"><button type="button" class="small" onClick=${() => setEditing(row)}>Edit</button> <button type="button" class="small danger" onClick=${() => remove(row)}>Delete</button></td>` : null}
            </tr>`,
          )}</tbody>
        </table></div>`
      : null}
  </div>`;
}

const GUARDRAILS: Resource = {
  title: "Guardrails",
  singular: "guardrail",
  path: "/v1/guardrails",
  idField: "slug",
  columns: [
    ["Name", (row) => row.name],
    ["Slug", (row) => html`<span class="mono">${row.slug}</span>`],
    ["Checks", (row) => ((row.checks as { type: string }[]) ?? []).map((check) => check.type).join(", ")],
    ["Action", (row) => ((row.action as { deny?: boolean })?.deny ? "deny" : "log only")],
  ],
  template: { name: "no-secrets", checks: [{ type: "regex_match", params: { pattern: "sk-[A-Za-z0-9]{20,}", not: true } }], action: { deny: true } },
  editable: (row) => ({ name: row.name, checks: row.checks, action: row.action }),
  empty: "No guardrails yet.",
};

export function GuardrailsView() {
  return html`<${ResourceView} resource=${GUARDRAILS} admin=${true} />`;
}
