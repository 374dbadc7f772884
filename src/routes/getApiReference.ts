import { Scalar } from "@scalar/hono-api-reference";
import { getApiReferenceRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import { FAVICON_PATH, SCALAR_BUNDLE_PATH } from "./dashboard.ts";

/**
 * A readable API reference page rendered from `/openapi.json`. Scalar's script comes from this
 * gateway (`dashboard.ts` serves the package's browser bundle), not a CDN, and its default web
 * fonts, its AI agent (which asks Scalar's servers for a registry) and its telemetry are off, so
 * the page renders offline and calls nothing but this gateway.
 */
/**
 * The page's own script and styles are inline (Scalar writes its configuration into the page),
 * the rest comes from this gateway; nothing may frame it.
 */
const DOCS_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

export function registerGetApiReference(app: GatewayApp): void {
  const page = Scalar({
    url: "/openapi.json",
    pageTitle: "AI Gateway API reference",
    favicon: FAVICON_PATH,
    cdn: SCALAR_BUNDLE_PATH,
    withDefaultFonts: false,
    telemetry: false,
    // Requests go to the gateway the page was opened from: a relative server is resolved against
    // the page's origin, whatever address the document names.
    servers: [{ url: "/", description: "This gateway" }],
    // Nothing leads off the machine: no link to Scalar's hosted client, no share or deploy menus.
    hideClientButton: true,
    showDeveloperTools: "never",
    // Every operation is listed in the sidebar at once.
    defaultOpenAllTags: true,
    customCss: 'a[href*="scalar.com"] { display: none !important; }',
    // Known to the bundle served (1.46), not yet to the integration's types.
    ...({ agent: { disabled: true } } as object),
  });
  app.openapi(getApiReferenceRoute, async (c, next) => {
    const answer = (await page(c as never, next)) as Response;
    for (const [name, value] of Object.entries(DOCS_HEADERS)) answer.headers.set(name, value);
    return answer as never;
  });
}
