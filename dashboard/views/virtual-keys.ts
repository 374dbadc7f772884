import { useEffect, useState } from "preact/hooks";
import { html } from "../lib/html.ts";
import { api } from "../lib/api.ts";
import { dash, usd } from "../lib/format.ts";
import { href } from "../lib/route.ts";
import type { VirtualKey, VirtualKeyList } from "../lib/types.ts";
import { invalidateVirtualKeys } from "../lib/virtual-keys.ts";
import { Empty, ErrorBox, Loading, Panel } from "../components/ui.ts";

interface Draft {
  name: string;
  provider: string;
  key: string;
  custom_host: string;
  credit_limit_usd: string;
  period: string;
  requests_per_minute: string;
  tokens_per_minute: string;
}

const EMPTY: Draft = { name: "", provider: "openai", key: "", custom_host: "", credit_limit_usd: "", period: "none", requests_per_minute: "", tokens_per_minute: "" };

function draftOf(key: VirtualKey): Draft {
  return {
    name: key.name,
    provider: key.provider,
    key: "",
    custom_host: key.custom_host ?? "",
    credit_limit_usd: key.budget ? String(key.budget.credit_limit_usd) : "",
    period: key.budget?.period ?? "none",
    requests_per_minute: key.rate_limit?.requests_per_minute ? String(key.rate_limit.requests_per_minute) : "",
    tokens_per_minute: key.rate_limit?.tokens_per_minute ? String(key.rate_limit.tokens_per_minute) : "",
  };
}

function bodyOf(draft: Draft, existing: VirtualKey | null): Record<string, unknown> {
  const body: Record<string, unknown> = { name: draft.name };
  if (!existing) body.provider = draft.provider;
  if (draft.key) body.key = draft.key;
  if (draft.custom_host) body.custom_host = draft.custom_host;
  else if (existing?.custom_host) body.custom_host = null;
  if (draft.credit_limit_usd) body.budget = { credit_limit_usd: Number(draft.credit_limit_usd), period: draft.period };
  else if (existing?.budget) body.budget = null;
  const rate: Record<string, number> = {};
  if (draft.requests_per_minute) rate.requests_per_minute = Number(draft.requests_per_minute);
  if (draft.tokens_per_minute) rate.tokens_per_minute = Number(draft.tokens_per_minute);
  if (Object.keys(rate).length) body.rate_limit = rate;
  else if (existing?.rate_limit) body.rate_limit = null;
  return body;
}

function VirtualKeyForm({ existing, onDone }: { existing: VirtualKey | null; onDone: () => void }) {
  const [draft, setDraft] = useState<Draft>(existing ? draftOf(existing) : EMPTY);
  const [error, setError] = useState<unknown>(null);
  const set = (name: keyof Draft) => (event: Event) => setDraft({ ...draft, [name]: (event.target as HTMLInputElement).value });
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      if (existing) await api(`/v1/virtual-keys/${existing.slug}`, { method: "PUT", body: bodyOf(draft, existing) });
      else await api("/v1/virtual-keys", { method: "POST", body: bodyOf(draft, null) });
      invalidateVirtualKeys();
      onDone();
    } catch (failure) {
      setError(failure);
    }
  };
  const field = (name: keyof Draft, label: string, props: Record<string, unknown> = {}) =>
    html`<div class="field"><label for=${`vk-${name}`}>${label}</label><input id=${`vk-${name}`} name=${name} value=${draft[name]} onInput=${set(name)} ...${props} /></div>`;
  return html`<${Panel} title=${existing ? `Edit ${existing.name}` : "New virtual key"} id="vk-form">
    <form onSubmit=${submit} aria-label=${existing ? "Edit virtual key" : "New virtual key"}>
      <div class="filter-row">
        ${field("name", "Name", { required: true, maxLength: 200 })}
        ${existing ? html`<div class="field"><label>Provider</label><input value=${existing.provider} disabled /></div>` : field("provider", "Provider", { required: true })}
        ${field("key", existing ? "Upstream key (leave empty to keep)" : "Upstream key", { type: "password", required: !existing, autocomplete: "off" })}
        ${field("custom_host", "Custom host (optional)", { type: "url", placeholder: "https://…" })}
      </div>
      <div class="filter-row">
        ${field("credit_limit_usd", "Credit limit (USD)", { type: "number", min: "0", step: "any" })}
        <div class="field"><label for="vk-period">Budget period</label><select id="vk-period" value=${draft.period} onChange=${set("period")}><option value="none">none</option><option value="weekly">weekly</option><option value="monthly">monthly</option></select></div>
        ${field("requests_per_minute", "Requests / minute", { type: "number", min: "1", step: "1" })}
        ${field("tokens_per_minute", "Tokens / minute", { type: "number", min: "1", step: "1" })}
      </div>
      <${ErrorBox} error=${error} />
      <div class="buttons-row"><button type="submit" class="primary">${existing ? "Save" : "Create virtual key"}</button><button type="button" onClick=${onDone}>Cancel</button></div>
    </form>
  </${Panel}>`;
}

/** Virtual keys (admin): stored upstream credentials with budgets and rate limits. */
export function VirtualKeysView() {
  const [keys, setKeys] = useState<VirtualKey[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [editing, setEditing] = useState<VirtualKey | "new" | null>(null);
  const load = () => api<VirtualKeyList>("/v1/virtual-keys").then((list) => setKeys(list.data), setError);
  useEffect(() => {
    load();
  }, []);
  const remove = async (key: VirtualKey) => {
    if (!confirm(`Delete the virtual key “${key.name}”? It stops working at once.`)) return;
    setError(null);
    try {
      await api(`/v1/virtual-keys/${key.slug}`, { method: "DELETE" });
      invalidateVirtualKeys();
      await load();
    } catch (failure) {
      setError(failure);
    }
  };
  return html`<div class="page">
    <header class="page-head"><h1>Virtual keys</h1><div class="actions"><button type="button" class="primary" onClick=${() => setEditing("new")}>New virtual key</button></div></header>
    ${editing ? html`<${VirtualKeyForm} key=${editing === "new" ? "new" : editing.id} existing=${editing === "new" ? null : editing} onDone=${() => { setEditing(null); load(); }} />` : null}
    <${ErrorBox} error=${error} />
    ${keys === null && !error ? html`<${Loading} />` : null}
    ${keys && keys.length === 0 ? html`<${Empty}>No virtual keys yet. A virtual key stores an upstream credential so callers never hold it.</${Empty}>` : null}
    ${keys && keys.length > 0
      ? html`<div class="table-wrap"><table class="logs" data-testid="virtual-keys">
          <thead><tr><th>Name</th><th>Slug</th><th>Provider</th><th>Key</th><th>Budget</th><th>Rate limit</th><th><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>${keys.map(
            (key) => html`<tr>
              <td><a href=${href("/logs", { virtual_key_id: key.id })} title="Its requests">${key.name}</a></td>
              <td class="mono">${key.slug}</td><td>${key.provider}</td><td class="mono">${key.masked_key}</td>
              <td>${key.budget ? `${usd(key.budget.credit_limit_usd)} ${key.budget.period && key.budget.period !== "none" ? key.budget.period : ""}` : dash}</td>
              <td>${key.rate_limit ? [key.rate_limit.requests_per_minute ? `${key.rate_limit.requests_per_minute} req/min` : "", key.rate_limit.tokens_per_minute ? `${key.rate_limit.tokens_per_minute} tok/min` : ""].filter(Boolean).join(", ") : dash}</td>
              <td class="right nowrap"><button type="button" class="small" onClick=${() => setEditing(key)}>Edit</button> <button type="button" class="small danger" onClick=${() => remove(key)}>Delete</button></td>
            </tr>`,
          )}</tbody>
        </table></div>`
      : null}
  </div>`;
}
