import { useEffect, useState } from "preact/hooks";
import { html } from "../lib/html.ts";
import { api } from "../lib/api.ts";
import { dash, time } from "../lib/format.ts";
import { href, navigate } from "../lib/route.ts";
import { STATUS_CLASS, stopSummary } from "../lib/experiment-format.ts";
import type { Experiment, ExperimentList } from "../lib/types.ts";
import { JsonEditor } from "../components/json-editor.ts";
import { Empty, ErrorBox, Loading } from "../components/ui.ts";

const NEW_EXPERIMENT = {
  name: "gpt-4o canary",
  assignment: "user",
  variants: [
    { name: "control", weight: 9 },
    { name: "gpt-4o", weight: 1, model: "gpt-4o" },
  ],
  guards: [{ metric: "error_rate", tolerance: 0.02 }],
};

const STATUSES = ["draft", "running", "stopped", "concluded"] as const;

/** A variant's share of the traffic. */
export function share(experiment: Experiment, weight: number): string {
  const total = experiment.variants.reduce((sum, variant) => sum + variant.weight, 0);
  return total > 0 ? `${Math.round((weight / total) * 1000) / 10} %` : dash;
}

/** Experiments: each with its status, variants and why it stopped; each opens with its results. */
export function ExperimentsView({ params, admin }: { params: URLSearchParams; admin: boolean }) {
  const [experiments, setExperiments] = useState<Experiment[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [creating, setCreating] = useState(false);
  const status = params.get("status") ?? "";
  useEffect(() => {
    setExperiments(null);
    setError(null);
    api<ExperimentList>("/v1/experiments", { query: { status } }).then((list) => setExperiments(list.data), setError);
  }, [status]);
  const create = async (body: unknown) => {
    const created = await api<Experiment>("/v1/experiments", { method: "POST", body });
    navigate(`/experiments/${created.id}`);
  };
  return html`<div class="page">
    <header class="page-head">
      <h1>Experiments</h1>
      <div class="actions">
        <label for="experiment-status">Status</label>
        <select id="experiment-status" value=${status} onChange=${(event: Event) => navigate("/experiments", { status: (event.target as HTMLSelectElement).value }, true)}>
          <option value="" selected=${status === ""}>any</option>
          ${STATUSES.map((value) => html`<option value=${value} selected=${value === status}>${value}</option>`)}
        </select>
        ${admin ? html`<button type="button" class="primary" onClick=${() => setCreating(true)}>New experiment</button>` : null}
      </div>
    </header>
    ${creating
      ? html`<${JsonEditor} title="New experiment" initial=${NEW_EXPERIMENT} submitLabel="Create draft" onSubmit=${create} onCancel=${() => setCreating(false)}
          extra=${html`<p class="muted small-text">The first variant is the control. A config joins its requests by naming the experiment (<code>${'"experiment": "<id>"'}</code>); start it from its page.</p>`} />`
      : null}
    <${ErrorBox} error=${error} />
    ${experiments === null && !error ? html`<${Loading} />` : null}
    ${experiments && experiments.length === 0 ? html`<${Empty}>No experiments${status ? ` ${status}` : ""}. An experiment splits a config's requests between variants and judges them on their outcomes.</${Empty}>` : null}
    ${experiments && experiments.length > 0
      ? html`<div class="table-wrap"><table class="logs" data-testid="experiments">
          <thead><tr><th>Name</th><th>Status</th><th>Variants</th><th>Assignment</th><th>Guards</th><th>Started</th><th>Stop reason</th></tr></thead>
          <tbody>${experiments.map(
            (experiment) => html`<tr data-experiment=${experiment.id} onClick=${(event: Event) => (event.target as Element).closest("a") || navigate(`/experiments/${experiment.id}`)}>
              <td><a href=${href(`/experiments/${experiment.id}`)}>${experiment.name}</a></td>
              <td><span class=${`pill ${STATUS_CLASS[experiment.status]}`}>${experiment.status}</span></td>
              <td>${experiment.variants.map((variant, index) => html`${index ? ", " : ""}${variant.name} <span class="muted">${share(experiment, variant.weight)}</span>`)}</td>
              <td>${experiment.assignment}</td>
              <td>${experiment.guards.map((guard) => guard.metric).join(", ") || dash}</td>
              <td class="nowrap">${experiment.started_at ? time(experiment.started_at) : dash}</td>
              <td>${experiment.stop_reason ? stopSummary(experiment.stop_reason) : experiment.promoted_variant ? `promoted ${experiment.promoted_variant}` : dash}</td>
            </tr>`,
          )}</tbody>
        </table></div>`
      : null}
  </div>`;
}
