import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import "./styles.css";
import { html } from "./lib/html.ts";
import { loadSession, saveSession, setUnauthorizedHandler, type Session } from "./lib/api.ts";
import { loadCapabilities, type Capabilities } from "./lib/capabilities.ts";
import { href, useRoute } from "./lib/route.ts";
import { SignIn } from "./views/sign-in.ts";
import { LogsView } from "./views/logs.ts";
import { LogDetail } from "./views/log-detail.ts";
import { TraceView } from "./views/trace.ts";
import { AnalyticsView } from "./views/analytics.ts";
import { ApiKeysView } from "./views/api-keys.ts";
import { VirtualKeysView } from "./views/virtual-keys.ts";
import { ConfigsView } from "./views/configs.ts";
import { GuardrailsView } from "./views/resources.ts";
import { PromptsView } from "./views/prompts.ts";
import { PlaygroundView } from "./views/playground.ts";
import { ExperimentsView } from "./views/experiments.ts";
import { ExperimentView } from "./views/experiment.ts";
import { BudgetsView } from "./views/budgets.ts";
import { ErrorBox, Loading } from "./components/ui.ts";

interface NavItem {
  path: string;
  label: string;
  admin?: boolean;
  /** Shown only when the API has it. */
  needs?: keyof Capabilities;
}

const NAV: NavItem[] = [
  { path: "/logs", label: "Logs" },
  { path: "/traces", label: "Traces" },
  { path: "/analytics", label: "Analytics" },
  { path: "/prompts", label: "Prompts" },
  { path: "/experiments", label: "Experiments", needs: "experiments" },
  { path: "/virtual-keys", label: "Virtual keys", admin: true },
  { path: "/budgets", label: "Budgets", admin: true },
  { path: "/configs", label: "Configs", admin: true },
  { path: "/guardrails", label: "Guardrails", admin: true },
  { path: "/api-keys", label: "Gateway keys", admin: true },
];

function AdminOnly() {
  return html`<div class="notice" role="alert"><strong>Admin key needed.</strong> This screen manages the workspace; sign in with an admin key to use it.</div>`;
}

function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const [capabilities, setCapabilities] = useState<Capabilities | null>(null);
  const [capabilityError, setCapabilityError] = useState<unknown>(null);
  const route = useRoute();

  useEffect(() => {
    setUnauthorizedHandler(() => {
      saveSession(null);
      setSession(null);
    });
    loadCapabilities().then(setCapabilities, setCapabilityError);
  }, []);

  const signOut = () => {
    saveSession(null);
    setSession(null);
  };

  if (!session) {
    return html`<${SignIn}
      onSignedIn=${(next: Session) => {
        saveSession(next);
        setSession(next);
      }}
    />`;
  }
  if (capabilityError) return html`<main class="content"><${ErrorBox} error=${capabilityError} /></main>`;
  if (!capabilities) return html`<${Loading} />`;

  const [section = "logs", id] = route.path;
  const admin = session.role === "admin";
  const adminView = (view: unknown) => (admin ? view : html`<${AdminOnly} />`);
  let view: unknown;
  switch (section) {
    case "logs":
      view = id ? html`<${LogDetail} id=${id} />` : html`<${LogsView} params=${route.params} capabilities=${capabilities} session=${session} />`;
      break;
    case "traces":
      view = html`<${TraceView} traceId=${id} params=${route.params} capabilities=${capabilities} admin=${admin} />`;
      break;
    case "analytics":
      view = html`<${AnalyticsView} params=${route.params} capabilities=${capabilities} session=${session} />`;
      break;
    case "prompts":
      view = id ? html`<${PlaygroundView} id=${id} params=${route.params} session=${session} />` : html`<${PromptsView} admin=${admin} />`;
      break;
    case "experiments":
      view = id ? html`<${ExperimentView} id=${id} admin=${admin} />` : html`<${ExperimentsView} params=${route.params} admin=${admin} />`;
      break;
    case "virtual-keys":
      view = adminView(html`<${VirtualKeysView} />`);
      break;
    case "budgets":
      view = adminView(html`<${BudgetsView} />`);
      break;
    case "configs":
      view = adminView(html`<${ConfigsView} params=${route.params} />`);
      break;
    case "guardrails":
      view = adminView(html`<${GuardrailsView} />`);
      break;
    case "api-keys":
      view = adminView(html`<${ApiKeysView} />`);
      break;
    default:
      view = html`<div class="empty">No such page. <a href="#/logs">Go to the logs</a>.</div>`;
  }

  return html`<div class="shell">
    <a class="skip" href="#main" onClick=${(event: Event) => { event.preventDefault(); document.getElementById("main")?.focus(); }}>Skip to content</a>
    <nav class="sidebar" aria-label="Main">
      <div class="brand"><span class="logo" aria-hidden="true">◆</span> AI Gateway</div>
      <ul>
        ${NAV.filter((item) => (admin || !item.admin) && (!item.needs || capabilities[item.needs])).map(
          (item) => html`<li><a href=${href(item.path)} aria-current=${`/${section}` === item.path ? "page" : undefined}>${item.label}</a></li>`,
        )}
      </ul>
      <div class="who">
        <span class=${`pill ${admin ? "info" : "neutral"}`} data-testid="role">${admin ? "admin key" : "service key · read-only"}</span>
        <button type="button" class="link" onClick=${signOut}>Sign out</button>
        <a href="/docs" class="muted">API reference</a>
      </div>
    </nav>
    <main id="main" class="content" tabindex="-1">${view}</main>
  </div>`;
}

render(html`<${App} />`, document.getElementById("app")!);
