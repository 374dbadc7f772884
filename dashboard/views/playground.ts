import { useEffect, useState } from "preact/hooks";
import { html } from "../lib/html.ts";
import { api, ApiError, type Session } from "../lib/api.ts";
import { useCatalogue } from "../lib/catalogue.ts";
import { href, navigate } from "../lib/route.ts";
import { isVirtualKey, streamRun, type RunResult } from "../lib/run.ts";
import { renderTemplate, templateVariables, variableValue } from "../lib/template.ts";
import { draftOf, parameters, sameDraft, saveBody, type Draft } from "../lib/prompt-draft.ts";
import type { Prompt, PromptMessage, PromptVersion, PromptVersionList } from "../lib/types.ts";
import { useVirtualKeys } from "../lib/virtual-keys.ts";
import { MessagesEditor } from "../components/messages-editor.ts";
import { RunOutput } from "../components/run-output.ts";
import { ErrorBox, Loading, Panel } from "../components/ui.ts";
import { LabelPills } from "./prompts.ts";
import { LabelsPanel } from "./prompt-labels.ts";
import { PromptDiffPanel } from "./prompt-diff.ts";

/** One column of a run: the edit or a saved version, with its model and target. */
interface Side {
  source: "edit" | number;
  model: string;
  target: string;
}

interface SideRun {
  text: string;
  running: boolean;
  result: RunResult | null;
}

const IDLE: SideRun = { text: "", running: false, result: null };

/**
 * The prompt playground: edit a prompt's messages, model, target and parameters, fill its
 * variables, run the edit streamed (or two versions or models side by side on the same
 * variables), save it as a new version, move labels, and compare versions.
 */
export function PlaygroundView({ id, params, session }: { id: string; params: URLSearchParams; session: Session }) {
  const admin = session.role === "admin";
  const [prompt, setPrompt] = useState<Prompt | null>(null);
  const [versions, setVersions] = useState<PromptVersion[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [base, setBase] = useState<number | null>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const [upstreamKey, setUpstreamKey] = useState("");
  const [customHost, setCustomHost] = useState("");
  const [compare, setCompare] = useState(false);
  const [sides, setSides] = useState<Side[]>([]);
  const [runs, setRuns] = useState<SideRun[]>([IDLE, IDLE]);
  const [saving, setSaving] = useState<{ busy: boolean; error: unknown; saved: number | null }>({ busy: false, error: null, saved: null });
  const catalogue = useCatalogue();
  const virtualKeys = useVirtualKeys(session);

  /** Reads the prompt and its versions; `edit` loads that version (or the default) into the editor. */
  const load = async (edit?: number | "default") => {
    try {
      const [next, list] = await Promise.all([api<Prompt>(`/v1/prompts/${id}`), api<PromptVersionList>(`/v1/prompts/${id}/versions`)]);
      setPrompt(next);
      setVersions(list.data);
      if (edit === undefined) return;
      const wanted = edit === "default" ? next.default_version : edit;
      const chosen = list.data.find((version) => version.version === wanted) ?? list.data[0]!;
      setBase(chosen.version);
      setDraft(draftOf(chosen));
    } catch (failure) {
      setError(failure);
    }
  };
  useEffect(() => {
    setPrompt(null);
    setBase(null);
    setDraft(null);
    setError(null);
    void load("default");
  }, [id]);

  if (error) return html`<div class="page"><${ErrorBox} error=${error} /><a href=${href("/prompts")}>Back to the prompts</a></div>`;
  if (!prompt || !draft || base === null) return html`<${Loading} />`;

  const baseVersion = versions.find((version) => version.version === base)!;
  const dirty = !sameDraft(draft, draftOf(baseVersion));
  const editSide: Side = { source: "edit", model: draft.model, target: draft.target };
  const active = compare ? sides : [editSide];
  const versionOf = (source: Side["source"]) => (source === "edit" ? null : versions.find((version) => version.version === source) ?? null);
  const names = [...new Set([...templateVariables(draft.messages), ...active.flatMap((side) => versionOf(side.source)?.variables ?? [])])].sort();
  const change = (next: Partial<Draft>) => setDraft({ ...draft, ...next });

  const runSide = async (side: Side, index: number) => {
    const show = (update: Partial<SideRun>) => setRuns((current) => current.map((run, at) => (at === index ? { ...run, ...update } : run)));
    show({ text: "", running: true, result: null });
    const variables = Object.fromEntries(names.map((name) => [name, variableValue(values[name] ?? "")]));
    const target = { target: side.target, upstreamKey, customHost };
    const onText = (text: string) => show({ text });
    let result: RunResult;
    try {
      if (side.source === "edit") {
        const rendered = renderTemplate(draft.messages, variables);
        if ("problem" in rendered) throw new ApiError(`${rendered.problem.param}: ${rendered.problem.message}`, 0, null, rendered.problem.param);
        result = await streamRun("/v1/chat/completions", { ...parameters(draft.parameters), model: side.model, messages: rendered.messages }, target, onText);
      } else {
        result = await streamRun(`/v1/prompts/${id}/completions`, { variables, model: side.model }, target, onText, { version: String(side.source) });
      }
    } catch (failure) {
      result = { text: "", status: null, logId: null, model: null, provider: null, firstTokenMs: null, totalMs: 0, usage: null, error: failure as ApiError };
    }
    show({ text: result.text, running: false, result });
  };
  const runAll = (event: Event) => {
    event.preventDefault();
    active.forEach((side, index) => void runSide(side, index));
  };
  const startCompare = (on: boolean) => {
    setCompare(on);
    setRuns([IDLE, IDLE]);
    if (on) setSides([editSide, { ...editSide }]);
  };
  const setSide = (index: number, next: Partial<Side>) => setSides(sides.map((side, at) => (at === index ? { ...side, ...next } : side)));
  const pickSource = (index: number, value: string) => {
    const version = value === "edit" ? null : versions.find((item) => String(item.version) === value)!;
    const from = version ? draftOf(version) : draft;
    setSide(index, { source: version ? version.version : "edit", model: from.model, target: from.target });
  };

  const save = async () => {
    setSaving({ busy: true, error: null, saved: null });
    try {
      const saved = await api<PromptVersion>(`/v1/prompts/${id}`, { method: "PUT", body: saveBody(draft) });
      await load(saved.version);
      setSaving({ busy: false, error: null, saved: saved.version });
    } catch (failure) {
      setSaving({ busy: false, error: failure, saved: null });
    }
  };

  const modelsOf = (target: string) => {
    const provider = isVirtualKey(target) ? virtualKeys.find((key) => `@${key.slug}` === target)?.provider : target;
    return provider ? (catalogue.models.get(provider) ?? []) : [];
  };
  const datalists = html`
    <datalist id="targets">${[...virtualKeys.map((key) => `@${key.slug}`), ...catalogue.providers].map((value) => html`<option value=${value} />`)}</datalist>
    ${[draft.target, ...sides.map((side) => side.target)].map((target, index) => html`<datalist id=${`models-${index}`}>${modelsOf(target).map((model) => html`<option value=${model} />`)}</datalist>`)}`;
  const targetField = (id: string, value: string, onValue: (value: string) => void) => html`<div class="field">
    <label for=${id}>Provider or @virtual key</label>
    <input id=${id} list="targets" value=${value} placeholder="openai or @vk-…" onInput=${(event: Event) => onValue((event.target as HTMLInputElement).value)} />
  </div>`;
  const modelField = (id: string, value: string, list: string, onValue: (value: string) => void) => html`<div class="field">
    <label for=${id}>Model</label>
    <input id=${id} list=${list} value=${value} required onInput=${(event: Event) => onValue((event.target as HTMLInputElement).value)} />
  </div>`;
  const pickDiff = (from: number, to: number) => {
    const next = new URLSearchParams(params);
    next.set("from", String(from));
    next.set("to", String(to));
    navigate(`/prompts/${id}`, next, true);
  };
  const diffTo = Number(params.get("to")) || versions[0]!.version;
  const diffFrom = Number(params.get("from")) || (versions[1] ?? versions[0]!).version;
  const anyProviderTarget = active.some((side) => !isVirtualKey(side.target.trim()));

  return html`<div class="page playground">
    ${datalists}
    <header class="page-head">
      <div>
        <p class="crumbs"><a href=${href("/prompts")}>Prompts</a> /</p>
        <h1>${prompt.name} <${LabelPills} labels=${prompt.labels} /></h1>
      </div>
      <div class="actions">
        <label for="load-version">Editing from</label>
        <select id="load-version" value=${String(base)} onChange=${(event: Event) => {
          const select = event.target as HTMLSelectElement;
          if (dirty && !confirm("Discard the unsaved changes?")) {
            select.value = String(base);
            return;
          }
          const version = versions.find((item) => String(item.version) === select.value)!;
          setBase(version.version);
          setDraft(draftOf(version));
        }}>
          ${versions.map((version) => html`<option value=${String(version.version)} selected=${version.version === base}>v${version.version}${version.labels.length ? ` (${version.labels.join(", ")})` : ""}</option>`)}
        </select>
        ${dirty ? html`<span class="pill warn" data-testid="unsaved">unsaved changes</span>` : null}
        <a class="button small" href=${href("/logs", { prompt_id: id })}>Requests</a>
      </div>
    </header>

    <div class="grid-2">
      <${Panel} title="Template" id="template-title">
        <${MessagesEditor} messages=${draft.messages} onChange=${(messages: PromptMessage[]) => change({ messages })} />
        <div class="filter-row">
          ${modelField("draft-model", draft.model, "models-0", (model) => change({ model }))}
          ${targetField("draft-target", draft.target, (target) => change({ target }))}
        </div>
        <label for="draft-parameters">Parameters (JSON)</label>
        <textarea id="draft-parameters" class="code-input" rows=${Math.min(10, Math.max(3, draft.parameters.split("\n").length))} spellcheck="false" value=${draft.parameters} onInput=${(event: Event) => change({ parameters: (event.target as HTMLTextAreaElement).value })}></textarea>
        ${admin
          ? html`<div class="buttons-row center">
              <button type="button" class="primary" disabled=${saving.busy || !dirty} onClick=${save}>Save as new version</button>
              ${saving.saved !== null && !dirty ? html`<span class="pill ok" role="status">Saved as v${saving.saved}</span>` : null}
            </div>
            <${ErrorBox} error=${saving.error} />`
          : html`<p class="muted small-text">Saving a version and moving labels need an admin key; this key can run the edit.</p>`}
      </${Panel}>

      <div class="stack-col">
        <${Panel} title="Variables" id="variables-title">
          ${names.length === 0 ? html`<p class="muted">The template names no variables.</p>` : null}
          <div class="variables">${names.map((name) => html`<div class="field wide" key=${name}>
            <label for=${`var-${name}`}>${name}</label>
            <textarea id=${`var-${name}`} rows="2" value=${values[name] ?? ""} onInput=${(event: Event) => setValues({ ...values, [name]: (event.target as HTMLTextAreaElement).value })}></textarea>
          </div>`)}</div>
          <p class="muted small-text">A value that is a JSON array or object is sent parsed, for <code>{{#section}}</code>s over it.</p>
        </${Panel}>
        ${anyProviderTarget
          ? html`<${Panel} title="Upstream" id="upstream-title">
              <div class="filter-row">
                <div class="field"><label for="upstream-key">Upstream key</label><input id="upstream-key" type="password" autocomplete="off" value=${upstreamKey} onInput=${(event: Event) => setUpstreamKey((event.target as HTMLInputElement).value)} /></div>
                <div class="field"><label for="custom-host">Custom host</label><input id="custom-host" placeholder="http://127.0.0.1:11434/v1" value=${customHost} onInput=${(event: Event) => setCustomHost((event.target as HTMLInputElement).value)} /></div>
              </div>
              <p class="muted small-text">For a provider target (a virtual key brings its own): sent as <code>Authorization</code> and <code>x-gateway-custom-host</code>, kept in this page's memory only.</p>
            </${Panel}>`
          : null}
      </div>
    </div>

    <${Panel} title="Run" id="run-title" actions=${html`<label class="check"><input type="checkbox" checked=${compare} onChange=${(event: Event) => startCompare((event.target as HTMLInputElement).checked)} /> Side by side</label>`}>
      <form onSubmit=${runAll} aria-label="Run">
        ${compare
          ? html`<div class="versions">${sides.map((side, index) => {
              const name = index === 0 ? "A" : "B";
              return html`<section class="version-col" aria-label=${`Side ${name}`}>
                <div class="filter-row">
                  <div class="field">
                    <label for=${`side-${name}-source`}>Template</label>
                    <select id=${`side-${name}-source`} value=${String(side.source)} onChange=${(event: Event) => pickSource(index, (event.target as HTMLSelectElement).value)}>
                      <option value="edit" selected=${side.source === "edit"}>the edit${dirty ? " (unsaved)" : ""}</option>
                      ${versions.map((version) => html`<option value=${String(version.version)} selected=${side.source === version.version}>v${version.version}${version.labels.length ? ` (${version.labels.join(", ")})` : ""}</option>`)}
                    </select>
                  </div>
                  ${modelField(`side-${name}-model`, side.model, `models-${index + 1}`, (model) => setSide(index, { model }))}
                  ${targetField(`side-${name}-target`, side.target, (target) => setSide(index, { target }))}
                </div>
                <${RunOutput} label=${name} ...${runs[index]} />
              </section>`;
            })}</div>`
          : html`<${RunOutput} label="edit" ...${runs[0]} />`}
        <div class="buttons-row"><button type="submit" class="primary" disabled=${runs.some((run) => run.running)}>${compare ? "Run both" : "Run"}</button></div>
      </form>
    </${Panel}>

    <div class="grid-2">
      ${admin ? html`<${LabelsPanel} key=${versions.length} prompt=${prompt} versions=${versions} onChanged=${(next: Prompt) => { setPrompt(next); void load(); }} />` : null}
      ${versions.length > 1 ? html`<${PromptDiffPanel} promptId=${id} versions=${versions} from=${diffFrom} to=${diffTo} onPick=${pickDiff} />` : null}
    </div>
  </div>`;
}
