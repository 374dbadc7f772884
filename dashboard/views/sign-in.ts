import { useState } from "preact/hooks";
import { html } from "../lib/html.ts";
import { signIn, type Session } from "../lib/api.ts";
import { ErrorBox } from "../components/ui.ts";

/** Sign in with a gateway key; the key stays in this tab's sessionStorage only. */
export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await signIn(key.trim()));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="sign-in">
    <form onSubmit=${submit} class="card" aria-labelledby="sign-in-title">
      <div class="brand"><span class="logo" aria-hidden="true">◆</span> AI Gateway</div>
      <h1 id="sign-in-title">Sign in</h1>
      <p class="muted">Use a gateway key. An admin key manages keys, virtual keys, configs, prompts and guardrails; a service key reads its workspace's logs.</p>
      <label for="gateway-key">Gateway key</label>
      <input id="gateway-key" name="gateway-key" type="password" autocomplete="off" required value=${key} onInput=${(event: Event) => setKey((event.target as HTMLInputElement).value)} />
      <${ErrorBox} error=${error} />
      <button type="submit" class="primary" disabled=${busy || !key.trim()}>${busy ? "Checking…" : "Sign in"}</button>
      <details class="key-help" open>
        <summary>Where do I find a key?</summary>
        <p class="small-text">On its first start the gateway creates an admin key and prints it once in its output (the terminal running <code>npm start</code>), under “First start: created an admin gateway key”. <code>GATEWAY_ADMIN_KEY</code>, when set, is an admin key too.</p>
        <p class="small-text">For applications and read-only use, create a service key with the admin key: under <em>Gateway keys</em> once signed in, or</p>
        <pre class="code small" data-testid="service-key-command">${`curl -X POST ${location.origin}/v1/api-keys -H "x-gateway-api-key: $ADMIN_KEY" \\
  -H "Content-Type: application/json" -d '{"name":"backend","role":"service"}'`}</pre>
      </details>
      <p class="muted small-text">The key is kept in this tab only (sessionStorage) and sent as <code>x-gateway-api-key</code>.</p>
    </form>
  </main>`;
}
