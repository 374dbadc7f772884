import { useState } from "preact/hooks";
import { html } from "../lib/html.ts";
import { ErrorBox, Panel } from "./ui.ts";

/**
 * A JSON body editor for a create or update: parsed before it is sent, the API's error (its
 * message names the field) shown under it.
 */
export function JsonEditor({ title, initial, submitLabel, onSubmit, onCancel, extra }: {
  title: string;
  initial: unknown;
  submitLabel: string;
  onSubmit: (body: unknown) => Promise<void>;
  onCancel: () => void;
  extra?: unknown;
}) {
  const [text, setText] = useState(JSON.stringify(initial, null, 2));
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const id = `editor-${title.toLowerCase().replace(/\W+/g, "-")}`;
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (failure) {
      setError(new Error(`Not valid JSON: ${(failure as Error).message}`));
      return;
    }
    setBusy(true);
    try {
      await onSubmit(body);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return html`<${Panel} title=${title} id=${`${id}-title`}>
    <form onSubmit=${submit} aria-label=${title}>
      <label for=${id}>Body (JSON)</label>
      <textarea id=${id} class="code-input" rows=${Math.min(24, Math.max(6, text.split("\n").length + 1))} spellcheck="false" value=${text} onInput=${(event: Event) => setText((event.target as HTMLTextAreaElement).value)}></textarea>
      ${extra}
      <${ErrorBox} error=${error} />
      <div class="buttons-row"><button type="submit" class="primary" disabled=${busy}>${submitLabel}</button><button type="button" onClick=${onCancel}>Cancel</button></div>
    </form>
  </${Panel}>`;
}
