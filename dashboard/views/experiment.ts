import { useEffect, useState } from "preact/hooks";
import { html } from "../lib/html.ts";
import { api } from "../lib/api.ts";
import { dash, time } from "../lib/format.ts";
import { href } from "../lib/route.ts";
import { changeFormat, METRIC_LABEL, STATUS_CLASS, stopSummary, toleranceText, variantChanges } from "../lib/experiment-format.ts";
import type { Experiment, ExperimentResults, ExperimentStopReason } from "../lib/types.ts";
import { ErrorBox, Facts, Loading, Panel } from "../components/ui.ts";
import { share } from "./experiments.ts";
import { ExperimentResultsPanel } from "./experiment-results.ts";

/** Results are read again this often while the experiment runs. */
const REFRESH_MS = 5000;

/** Why the experiment stopped: the API's sentence, and for a guard the change measured against the tolerance. */
function StopReason({ reason }: { reason: ExperimentStopReason }) {
  const metric = reason.metric && reason.metric in METRIC_LABEL ? (reason.metric as keyof typeof METRIC_LABEL) : null;
  const format = metric ? changeFormat(metric) : (value: number) => String(value);
  return html`<div class=${reason.kind === "guard" ? "error" : "notice"} role="status" data-testid="stop-reason">
    <strong>${stopSummary(reason)}</strong> <span class="muted">(${time(reason.at)})</span>
    <p>${reason.detail}</p>
    ${reason.difference !== null
      ? html`<p class="small-text">Change measured ${format(reason.difference)}${reason.low !== null && reason.high !== null ? `, always-valid interval [${format(reason.low)}, ${format(reason.high)}]` : ""}${reason.tolerance !== null && metric ? `; the guard tolerates ${toleranceText(metric, reason.tolerance)}` : ""}.</p>`
      : null}
  </div>`;
}

/** Start, stop, promote (admin): each the API's own operation, its refusal shown. */
function Actions({ experiment, onChanged }: { experiment: Experiment; onChanged: (next: Experiment) => void }) {
  const [variant, setVariant] = useState(experiment.variants[1]?.name ?? experiment.control);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const act = async (question: string, work: () => Promise<Experiment>) => {
    if (!confirm(question)) return;
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
  const patch = (status: "running" | "stopped") => api<Experiment>(`/v1/experiments/${experiment.id}`, { method: "PATCH", body: { status } });
  const open = experiment.status === "running" || experiment.status === "stopped";
  return html`<div class="actions">
    ${experiment.status === "draft" || experiment.status === "stopped"
      ? html`<button type="button" class="primary" disabled=${busy} onClick=${() => act(`${experiment.status === "draft" ? "Start" : "Resume"} “${experiment.name}”? Requests of the configs that name it are split from the next one.`, () => patch("running"))}>${experiment.status === "draft" ? "Start" : "Resume"}</button>`
      : null}
    ${experiment.status === "running" ? html`<button type="button" class="danger" disabled=${busy} onClick=${() => act(`Stop “${experiment.name}”? Every request then gets the control.`, () => patch("stopped"))}>Stop</button>` : null}
    ${open
      ? html`<label for="promote-variant">Promote</label>
          <select id="promote-variant" value=${variant} onChange=${(event: Event) => setVariant((event.target as HTMLSelectElement).value)}>
            ${experiment.variants.map((item) => html`<option value=${item.name} selected=${item.name === variant}>${item.name}</option>`)}
          </select>
          <button type="button" disabled=${busy} onClick=${() => act(`Promote “${variant}”? Its change is written into the prompt or the configs, and the experiment is concluded.`, () => api<Experiment>(`/v1/experiments/${experiment.id}/promote`, { method: "POST", body: { variant } }))}>Promote</button>`
      : null}
    <${ErrorBox} error=${error} />
  </div>`;
}

/** One experiment: its variants and guards, why it stopped, and its results with their intervals. */
export function ExperimentView({ id, admin }: { id: string; admin: boolean }) {
  const [experiment, setExperiment] = useState<Experiment | null>(null);
  const [results, setResults] = useState<ExperimentResults | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [resultsError, setResultsError] = useState<unknown>(null);
  const loadResults = () => api<ExperimentResults>(`/v1/experiments/${id}/results`).then((next) => {
    setResults(next);
    setResultsError(null);
  }, setResultsError);
  const load = () => Promise.all([api<Experiment>(`/v1/experiments/${id}`).then(setExperiment, setError), loadResults()]);
  useEffect(() => {
    setExperiment(null);
    setResults(null);
    setError(null);
    void load();
  }, [id]);
  const running = experiment?.status === "running";
  useEffect(() => {
    if (!running) return;
    // A guard may stop it meanwhile: the experiment is read again with its results.
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [id, running]);

  if (error) return html`<div class="page"><${ErrorBox} error=${error} /><a href=${href("/experiments")}>Back to the experiments</a></div>`;
  if (!experiment) return html`<${Loading} />`;
  const reason = results?.stop_reason ?? experiment.stop_reason;
  return html`<div class="page">
    <header class="page-head">
      <div>
        <p class="crumbs"><a href=${href("/experiments")}>Experiments</a> /</p>
        <h1>${experiment.name} <span class=${`pill ${STATUS_CLASS[experiment.status]}`} data-testid="experiment-status">${experiment.status}</span></h1>
      </div>
      ${admin ? html`<${Actions} key=${experiment.status} experiment=${experiment} onChanged=${(next: Experiment) => { setExperiment(next); void loadResults(); }} />` : null}
    </header>
    ${reason ? html`<${StopReason} reason=${reason} />` : null}
    <div class="grid-2">
      <${Panel} title="Variants" id="variants-title">
        <table class="compact" data-testid="variants">
          <thead><tr><th>Variant</th><th class="num">Share</th><th>Changes</th></tr></thead>
          <tbody>${experiment.variants.map(
            (variant) => html`<tr data-variant=${variant.name}>
              <th scope="row">${variant.name}${variant.name === experiment.control ? html` <span class="pill neutral">control</span>` : null}${variant.name === experiment.promoted_variant ? html` <span class="pill ok">promoted</span>` : null}</th>
              <td class="num">${share(experiment, variant.weight)}</td>
              <td class="mono small-text">${variantChanges(variant).join(" · ") || html`<span class="muted">nothing</span>`}</td>
            </tr>`,
          )}</tbody>
        </table>
        <h3>Guards</h3>
        ${experiment.guards.length
          ? html`<ul class="plain" data-testid="guards">${experiment.guards.map((guard) => html`<li><strong>${METRIC_LABEL[guard.metric]}</strong>: ${toleranceText(guard.metric, guard.tolerance)}</li>`)}</ul>`
          : html`<p class="muted">None: the experiment stops only by hand.</p>`}
      </${Panel}>
      <${Panel} title="Experiment" id="experiment-title">
        <${Facts} items=${[
          ["Assignment", `by ${experiment.assignment}`],
          ["Alpha", String(experiment.alpha)],
          ["Prompt", experiment.prompt_id ? html`<a href=${href(`/prompts/${experiment.prompt_id}`)} class="mono">${experiment.prompt_id}</a>` : "any request of its configs"],
          ["Started", experiment.started_at ? time(experiment.started_at) : dash],
          ["Stopped", experiment.stopped_at ? time(experiment.stopped_at) : dash],
          ["Concluded", experiment.concluded_at ? `${time(experiment.concluded_at)}${experiment.promoted_variant ? `, ${experiment.promoted_variant} promoted` : ""}` : dash],
          ["Description", experiment.description ?? dash],
          ["Id", html`<span class="mono">${experiment.id}</span>`],
          ["Requests", html`<a href=${href("/logs", { experiment_id: experiment.id })}>its logs</a>`],
        ]} />
      </${Panel}>
    </div>
    <${ErrorBox} error=${resultsError} />
    ${results
      ? html`<${ExperimentResultsPanel} results=${results} experimentId=${experiment.id} actions=${html`${running ? html`<span class="muted small-text">refreshed every ${REFRESH_MS / 1000} s</span>` : null}<button type="button" class="small" onClick=${() => void load()}>Refresh</button>`} />`
      : resultsError ? null : html`<${Loading} />`}
  </div>`;
}
