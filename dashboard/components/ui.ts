import { useState } from "preact/hooks";
import { html } from "../lib/html.ts";
import { statusClass } from "../lib/format.ts";

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const status = (error as { status?: number }).status;
  return html`<div class="error" role="alert"><strong>${status ? `Error ${status}` : "Error"}</strong> ${message}</div>`;
}

export function Empty({ children }: { children: unknown }) {
  return html`<div class="empty">${children}</div>`;
}

export function Loading() {
  return html`<div class="loading" aria-live="polite">Loading…</div>`;
}

export function StatusPill({ status }: { status: number }) {
  return html`<span class=${`pill ${statusClass(status)}`}>${status}</span>`;
}

/** Copies text to the clipboard; says so for a moment. */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      const area = document.createElement("textarea");
      area.value = text;
      document.body.append(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    setDone(true);
    setTimeout(() => setDone(false), 1200);
  };
  return html`<button type="button" class="small" onClick=${copy}>${done ? "Copied" : label}</button>`;
}

/** A titled panel. */
export function Panel({ title, actions, children, id }: { title: unknown; actions?: unknown; children: unknown; id?: string }) {
  return html`<section class="panel" aria-labelledby=${id}>
    <header><h2 id=${id}>${title}</h2><div class="actions">${actions}</div></header>
    <div class="panel-body">${children}</div>
  </section>`;
}

/** Label/value pairs. */
export function Facts({ items }: { items: [string, unknown][] }) {
  return html`<dl class="facts">${items.map(([label, value]) => html`<div><dt>${label}</dt><dd>${value}</dd></div>`)}</dl>`;
}
