import { useEffect, useState } from "preact/hooks";
import { html } from "../lib/html.ts";
import { api } from "../lib/api.ts";
import { dash, time, usd } from "../lib/format.ts";
import type { Budget, BudgetList } from "../lib/types.ts";
import { Empty, ErrorBox, Loading, Panel } from "../components/ui.ts";

/** How a budget's scope reads in the table. */
function scopeText(budget: Budget): string {
  const scope = budget.scope;
  switch (scope.type) {
    case "workspace":
      return "workspace";
    case "api_key":
      return `gateway key ${scope.api_key_id ?? ""}`;
    case "virtual_key":
      return `virtual key ${scope.virtual_key ?? ""}`;
    case "user":
      return scope.user ? `end user ${scope.user}` : "each end user";
    case "metadata":
      return scope.value ? `${scope.key}=${scope.value}` : `each ${scope.key}`;
    default:
      return scope.model ? `model ${scope.model}` : "each model";
  }
}

function periodText(budget: Budget): string {
  const period = budget.period;
  if (period.type === "none") return "never resets";
  if (period.type === "rolling") return `last ${period.count} ${period.unit}${period.count === 1 ? "" : "s"}`;
  const week = period.unit === "week" && period.week_start === "sunday" ? " (from Sunday)" : "";
  return `each ${period.unit}${week}, ${period.time_zone ?? "UTC"}`;
}

function rateText(budget: Budget): string {
  const limit = budget.rate_limit;
  if (!limit) return dash;
  const parts: string[] = [];
  for (const [name, value] of Object.entries(limit)) if (typeof value === "number") parts.push(`${value.toLocaleString()} ${name.replace("_per_", "/").replace("requests", "req").replace("tokens", "tok")}`);
  return parts.join(", ");
}

/** Spend against the limit: a bar, the figures, and what the period is heading for. */
function Use({ spent, remaining, limit, forecast }: { spent: number | null; remaining: number | null; limit: number | null; forecast: number | null }) {
  if (spent === null) return html`<span class="muted">per value, below</span>`;
  const share = limit ? Math.min(1, spent / limit) : 0;
  const state = limit && spent >= limit ? "bad" : limit && forecast !== null && forecast > limit ? "warn" : "ok";
  return html`<span class="nowrap" data-state=${state}>
    ${limit ? html`<span class="meter" role="meter" aria-valuemin="0" aria-valuemax=${limit} aria-valuenow=${spent} aria-label="Spent of the limit"><span style=${`width:${(share * 100).toFixed(1)}%`}></span></span>` : null}
    ${usd(spent)}${limit ? ` of ${usd(limit)}` : ""}${remaining !== null ? html` · <span>${usd(remaining)} left</span>` : null}
  </span>`;
}

interface Draft {
  name: string;
  scope: string;
  value: string;
  key: string;
  limit: string;
  period: string;
  unit: string;
  time_zone: string;
  count: string;
  thresholds: string;
  requests_per_minute: string;
}

const EMPTY: Draft = { name: "", scope: "user", value: "", key: "", limit: "", period: "calendar", unit: "month", time_zone: "UTC", count: "24", thresholds: "0.5, 0.8, 1", requests_per_minute: "" };

function bodyOf(draft: Draft): Record<string, unknown> {
  const scope: Record<string, unknown> = { type: draft.scope };
  if (draft.scope === "api_key" && draft.value) scope.api_key_id = draft.value;
  if (draft.scope === "virtual_key" && draft.value) scope.virtual_key = draft.value;
  if (draft.scope === "user" && draft.value) scope.user = draft.value;
  if (draft.scope === "model" && draft.value) scope.model = draft.value;
  if (draft.scope === "metadata") {
    scope.key = draft.key;
    if (draft.value) scope.value = draft.value;
  }
  const period: Record<string, unknown> = { type: draft.period };
  if (draft.period === "calendar") Object.assign(period, { unit: draft.unit, time_zone: draft.time_zone || "UTC" });
  if (draft.period === "rolling") Object.assign(period, { unit: draft.unit === "day" ? "day" : "hour", count: Number(draft.count) });
  const body: Record<string, unknown> = { name: draft.name, scope, period };
  if (draft.limit) body.limit_usd = Number(draft.limit);
  const thresholds = draft.thresholds.split(",").map((part) => part.trim()).filter(Boolean).map(Number);
  if (draft.limit && thresholds.length) body.alert_thresholds = thresholds;
  if (draft.requests_per_minute) body.rate_limit = { requests_per_minute: Number(draft.requests_per_minute) };
  return body;
}

function BudgetForm({ onDone }: { onDone: () => void }) {
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [error, setError] = useState<unknown>(null);
  const set = (name: keyof Draft) => (event: Event) => setDraft({ ...draft, [name]: (event.target as HTMLInputElement).value });
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      await api("/v1/budgets", { method: "POST", body: bodyOf(draft) });
      onDone();
    } catch (failure) {
      setError(failure);
    }
  };
  const field = (name: keyof Draft, label: string, props: Record<string, unknown> = {}) =>
    html`<div class="field"><label for=${`budget-${name}`}>${label}</label><input id=${`budget-${name}`} name=${name} value=${draft[name]} onInput=${set(name)} ...${props} /></div>`;
  const select = (name: keyof Draft, label: string, options: [string, string][]) =>
    html`<div class="field"><label for=${`budget-${name}`}>${label}</label><select id=${`budget-${name}`} value=${draft[name]} onChange=${set(name)}>${options.map(([value, text]) => html`<option value=${value}>${text}</option>`)}</select></div>`;
  const valueLabel = { workspace: "", api_key: "Gateway key id", virtual_key: "Virtual key slug", user: "End user (empty: each)", metadata: "Value (empty: each)", model: "Model (empty: each)" }[draft.scope] ?? "";
  return html`<${Panel} title="New budget" id="budget-form">
    <form onSubmit=${submit} aria-label="New budget">
      <div class="filter-row">
        ${field("name", "Name", { required: true, maxLength: 200 })}
        ${select("scope", "Scope", [["workspace", "workspace"], ["api_key", "gateway key"], ["virtual_key", "virtual key"], ["user", "end user"], ["metadata", "metadata value"], ["model", "model"]])}
        ${draft.scope === "metadata" ? field("key", "Metadata key", { required: true }) : null}
        ${valueLabel ? field("value", valueLabel) : null}
      </div>
      <div class="filter-row">
        ${field("limit", "Limit (USD)", { type: "number", min: "0", step: "any" })}
        ${select("period", "Period", [["calendar", "calendar"], ["rolling", "rolling"], ["none", "never resets"]])}
        ${draft.period === "calendar" ? select("unit", "Each", [["day", "day"], ["week", "week"], ["month", "month"]]) : null}
        ${draft.period === "calendar" ? field("time_zone", "Time zone", { placeholder: "Europe/Berlin" }) : null}
        ${draft.period === "rolling" ? field("count", "Last", { type: "number", min: "1", step: "1" }) : null}
        ${draft.period === "rolling" ? select("unit", "Unit", [["hour", "hours"], ["day", "days"]]) : null}
        ${field("thresholds", "Alert thresholds")}
        ${field("requests_per_minute", "Requests / minute", { type: "number", min: "1", step: "1" })}
      </div>
      <${ErrorBox} error=${error} />
      <div class="buttons-row"><button type="submit" class="primary">Create budget</button><button type="button" onClick=${onDone}>Cancel</button></div>
    </form>
  </${Panel}>`;
}

/** Budgets (admin): every budget of the workspace with its use this period, members of per-value budgets beneath. */
export function BudgetsView() {
  const [budgets, setBudgets] = useState<Budget[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [creating, setCreating] = useState(false);
  const load = () => api<BudgetList>("/v1/budgets").then((list) => setBudgets(list.data), setError);
  useEffect(() => {
    load();
  }, []);
  const remove = async (budget: Budget) => {
    if (!confirm(`Delete the budget “${budget.name}”? Requests are no longer held to it.`)) return;
    setError(null);
    try {
      await api(`/v1/budgets/${budget.id}`, { method: "DELETE" });
      await load();
    } catch (failure) {
      setError(failure);
    }
  };
  return html`<div class="page">
    <header class="page-head"><h1>Budgets</h1><div class="actions"><button type="button" onClick=${load}>Refresh</button><button type="button" class="primary" onClick=${() => setCreating(true)}>New budget</button></div></header>
    ${creating ? html`<${BudgetForm} onDone=${() => { setCreating(false); load(); }} />` : null}
    <${ErrorBox} error=${error} />
    ${budgets === null && !error ? html`<${Loading} />` : null}
    ${budgets && budgets.length === 0 ? html`<${Empty}>No budgets yet. A budget caps what the workspace, a key, an end user, a team (metadata) or a model may spend in a period.</${Empty}>` : null}
    ${budgets && budgets.length > 0
      ? html`<div class="table-wrap"><table class="logs" data-testid="budgets">
          <thead><tr><th>Name</th><th>Scope</th><th>Period</th><th>Spend</th><th>Forecast</th><th>Period ends</th><th>Rate limit</th><th>Alerts</th><th><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>${budgets.flatMap((budget) => [
            html`<tr data-budget=${budget.id}>
              <td>${budget.name}${budget.source === "key" ? html` <span class="pill neutral" title="Set through the key's own budget and rate limit">key</span>` : null}</td>
              <td>${scopeText(budget)}</td>
              <td>${periodText(budget)}</td>
              <td><${Use} spent=${budget.spent_usd} remaining=${budget.remaining_usd} limit=${budget.limit_usd} forecast=${budget.forecast_usd} /></td>
              <td class=${budget.limit_usd !== null && budget.forecast_usd !== null && budget.forecast_usd > budget.limit_usd ? "warn-text" : ""}>${usd(budget.forecast_usd)}</td>
              <td>${budget.period_end ? time(budget.period_end) : dash}</td>
              <td>${rateText(budget)}</td>
              <td>${budget.alert_thresholds.length ? budget.alert_thresholds.map((value) => `${Math.round(value * 100)}%`).join(", ") : dash}</td>
              <td class="right nowrap">${budget.source === "budget" ? html`<button type="button" class="small danger" onClick=${() => remove(budget)}>Delete</button>` : null}</td>
            </tr>`,
            ...budget.members.map(
              (member) => html`<tr class="member" data-member=${member.value}>
                <td></td><td class="mono">${member.value}</td><td></td>
                <td><${Use} spent=${member.spent_usd} remaining=${member.remaining_usd} limit=${budget.limit_usd} forecast=${member.forecast_usd} /></td>
                <td>${usd(member.forecast_usd)}</td><td colspan="4"></td>
              </tr>`,
            ),
          ])}</tbody>
        </table></div>`
      : null}
  </div>`;
}
