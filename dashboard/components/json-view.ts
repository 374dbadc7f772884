import { html } from "../lib/html.ts";
import { bytes } from "../lib/format.ts";
import { CopyButton } from "./ui.ts";

/** Pretty JSON text; a string that is itself JSON is shown parsed. */
export function pretty(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value === "string") {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2);
}

/**
 * A body as the gateway logged it, pretty-printed, with a copy button. The text goes in as a
 * text node: whatever a logged body holds (`<script>`, `<img onerror>`) stays text.
 */
export function JsonView({ title, value, truncated, size, note }: { title: string; value: unknown; truncated?: boolean; size?: number | null; note?: unknown }) {
  const text = pretty(value);
  const label = title.toLowerCase().replace(/\W+/g, "-");
  return html`<section class="panel json" aria-label=${title}>
    <header>
      <h2>${title}</h2>
      <div class="actions">
        ${size !== undefined && size !== null ? html`<span class="muted">${bytes(size)}</span>` : null}
        ${truncated ? html`<span class="pill warn">truncated</span>` : null}
        ${note}
        <${CopyButton} text=${text} label=${`Copy ${title.toLowerCase()}`} />
      </div>
    </header>
    ${value === null || value === undefined ? html`<div class="empty">No body.</div>` : html`<pre class="code" data-testid=${label} tabindex="0">${text}</pre>`}
  </section>`;
}
