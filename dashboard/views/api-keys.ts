import { useEffect, useState } from "preact/hooks";
import { html } from "../lib/html.ts";
import { api } from "../lib/api.ts";
import { dash, time } from "../lib/format.ts";
import type { ApiKey, ApiKeyList, ApiKeyWithSecret } from "../lib/types.ts";
import { CopyButton, Empty, ErrorBox, Loading, Panel } from "../components/ui.ts";

/** Gateway keys (admin): list, create (the secret shown once), revoke. */
export function ApiKeysView() {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<ApiKeyWithSecret | null>(null);
  const [name, setName] = useState("");
  const [role, setRole] = useState("service");
  const load = () => api<ApiKeyList>("/v1/api-keys").then((list) => setKeys(list.data), setError);
  useEffect(() => {
    load();
  }, []);
  const create = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      setCreated(await api<ApiKeyWithSecret>("/v1/api-keys", { method: "POST", body: { name, role } }));
      setName("");
      await load();
    } catch (failure) {
      setError(failure);
    }
  };
  const revoke = async (key: ApiKey) => {
    if (!confirm(`Revoke the key “${key.name}”? It stops working at once.`)) return;
    setError(null);
    try {
      await api(`/v1/api-keys/${key.id}`, { method: "DELETE" });
      await load();
    } catch (failure) {
      setError(failure);
    }
  };
  return html`<div class="page">
    <header class="page-head"><h1>Gateway keys</h1></header>
    <${Panel} title="New key" id="new-key">
      <form class="filter-row" onSubmit=${create}>
        <div class="field"><label for="key-name">Name</label><input id="key-name" required maxLength="200" value=${name} onInput=${(event: Event) => setName((event.target as HTMLInputElement).value)} /></div>
        <div class="field"><label for="key-role">Role</label><select id="key-role" value=${role} onChange=${(event: Event) => setRole((event.target as HTMLSelectElement).value)}><option value="service">service</option><option value="admin">admin</option></select></div>
        <div class="field buttons"><button type="submit" class="primary">Create key</button></div>
      </form>
      ${created?.key
        ? html`<div class="notice" role="status">Key <strong>${created.name}</strong> created. Its secret is shown this once:
            <code class="secret" data-testid="new-secret">${created.key}</code> <${CopyButton} text=${created.key} /></div>`
        : null}
    </${Panel}>
    <${ErrorBox} error=${error} />
    ${keys === null && !error ? html`<${Loading} />` : null}
    ${keys && keys.length === 0 ? html`<${Empty}>No keys.</${Empty}>` : null}
    ${keys && keys.length > 0
      ? html`<div class="table-wrap"><table class="logs">
          <thead><tr><th>Name</th><th>Role</th><th>Prefix</th><th>Created</th><th>Revoked</th><th><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>${keys.map(
            (key) => html`<tr class=${key.revoked_at ? "revoked" : ""}>
              <td>${key.name}</td><td>${key.role}</td><td class="mono">${key.key_prefix}…</td><td>${time(key.created_at)}</td><td>${key.revoked_at ? time(key.revoked_at) : dash}</td>
              <td class="right">${key.revoked_at ? null : html`<button type="button" class="small danger" onClick=${() => revoke(key)}>Revoke</button>`}</td>
            </tr>`,
          )}</tbody>
        </table></div>`
      : null}
  </div>`;
}
