import { html } from "../lib/html.ts";
import type { PromptMessage } from "../lib/types.ts";

const ROLES: PromptMessage["role"][] = ["system", "developer", "user", "assistant"];

/** A prompt's messages as role and template rows: edit, add, remove, reorder. */
export function MessagesEditor({ messages, onChange }: { messages: PromptMessage[]; onChange: (next: PromptMessage[]) => void }) {
  const update = (index: number, change: Partial<PromptMessage>) => onChange(messages.map((message, at) => (at === index ? { ...message, ...change } : message)));
  const remove = (index: number) => onChange(messages.filter((_, at) => at !== index));
  const move = (index: number, by: number) => {
    const next = [...messages];
    const [message] = next.splice(index, 1);
    next.splice(index + by, 0, message!);
    onChange(next);
  };
  return html`<div class="messages" role="group" aria-label="Messages">
    ${messages.map((message, index) => {
      const n = index + 1;
      return html`<div class="message-row" key=${index}>
        <div class="message-head">
          <label for=${`message-${n}-role`} class="sr-only">Message ${n} role</label>
          <select id=${`message-${n}-role`} value=${message.role} onChange=${(event: Event) => update(index, { role: (event.target as HTMLSelectElement).value as PromptMessage["role"] })}>
            ${ROLES.map((role) => html`<option value=${role} selected=${role === message.role}>${role}</option>`)}
          </select>
          <span class="muted small-text">#${n}</span>
          <span class="grow"></span>
          <button type="button" class="small" aria-label=${`Move message ${n} up`} disabled=${index === 0} onClick=${() => move(index, -1)}>↑</button>
          <button type="button" class="small" aria-label=${`Move message ${n} down`} disabled=${index === messages.length - 1} onClick=${() => move(index, 1)}>↓</button>
          <button type="button" class="small danger" aria-label=${`Remove message ${n}`} disabled=${messages.length === 1} onClick=${() => remove(index)}>×</button>
        </div>
        <label for=${`message-${n}-content`} class="sr-only">Message ${n} content</label>
        <textarea id=${`message-${n}-content`} class="code-input" spellcheck="false" rows=${Math.min(14, Math.max(2, message.content.split("\n").length + 1))} value=${message.content} onInput=${(event: Event) => update(index, { content: (event.target as HTMLTextAreaElement).value })}></textarea>
      </div>`;
    })}
    <div><button type="button" class="small" onClick=${() => onChange([...messages, { role: "user", content: "" }])}>Add message</button></div>
  </div>`;
}
