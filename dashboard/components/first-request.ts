import { html } from "../lib/html.ts";

/** The call a user sends first, against this gateway's own address; the key stays a placeholder. */
export function firstRequestCommand(origin: string): string {
  return [
    `curl ${origin}/v1/chat/completions \\`,
    `  -H "x-gateway-api-key: $GATEWAY_KEY" \\`,
    `  -H "x-gateway-provider: openai" \\`,
    `  -H "Authorization: Bearer $OPENAI_API_KEY" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hello"}]}'`,
  ].join("\n");
}

/** What an empty, unfiltered logs page shows: how to send the first request it will list. */
export function FirstRequest({ origin }: { origin: string }) {
  return html`<section class="empty first-request" aria-labelledby="first-request-title">
    <h2 id="first-request-title">No requests yet</h2>
    <p>Every request sent through this gateway is logged here. Send a first one with a gateway key (<code>$GATEWAY_KEY</code>) and an upstream key:</p>
    <pre class="code small" data-testid="first-request">${firstRequestCommand(origin)}</pre>
    <p>For a local OpenAI-compatible server, send <code>x-gateway-provider: openai-compatible</code> and <code>x-gateway-custom-host: http://127.0.0.1:11434/v1</code> instead of the upstream key. Every operation is in the <a href="/docs">API reference</a>; turn on <em>Live tail</em> to watch requests arrive.</p>
  </section>`;
}
