import { GatewayError } from "../errors.ts";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { GatewayApp } from "../app-env.ts";

/**
 * The browser dashboard: static files built by `scripts/build-dashboard.ts` into
 * `dist/dashboard/`, served at `/` (the page) and `/dashboard/*` (its assets), outside the
 * OpenAPI document like the pass-through. The page talks to `/v1` with the key the user signs in
 * with; nothing here reads a key. `/dashboard/vendor/scalar.js` is Scalar's browser bundle for
 * `/docs`, so the API reference renders without a CDN.
 */
const DIST = fileURLToPath(new URL("../../dist/dashboard/", import.meta.url));

/** Scalar's self-contained browser bundle, resolved through the package's exports; undefined when not installed. */
function scalarBundle(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve("@scalar/api-reference/browser/standalone.js");
  } catch {
    return undefined;
  }
}

/**
 * Scalar's key fields show a made-up base64 string as their placeholder, which reads like a real
 * key; the page shows what belongs there instead.
 */
const SCALAR_KEY_PLACEHOLDER = "QUxMIFlPVVIgQkFTRSBBUkUgQkVMT05HIFRPIFVT";
export const API_KEY_PLACEHOLDER = "your gateway key";

/** The bundle as served: read once, with the neutral key placeholder. */
async function readScalarBundle(): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const bundle = scalarBundle();
  const script = bundle ? await readOptional(bundle) : undefined;
  if (!script) return undefined;
  const text = new TextDecoder().decode(script).replaceAll(SCALAR_KEY_PLACEHOLDER, API_KEY_PLACEHOLDER);
  return new TextEncoder().encode(text) as Uint8Array<ArrayBuffer>;
}

/** Where `/docs` loads Scalar from. */
export const SCALAR_BUNDLE_PATH = "/dashboard/vendor/scalar.js";

const PAGE_PATH = "/";
const ASSET_PATH = "/dashboard/assets/:name";
/** The icon of the dashboard and `/docs`; `/favicon.ico` is where browsers look without being told. */
export const FAVICON_PATH = "/favicon.svg";
const FAVICON_FALLBACK_PATH = "/favicon.ico";
const FAVICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f2a44"/><path d="M16 5 27 16 16 27 5 16Z" fill="#5c8dff"/></svg>';

/** The static paths this file registers, none of them in the document (nor under `/v1`). */
export const DASHBOARD_PATHS: readonly string[] = [PAGE_PATH, ASSET_PATH, SCALAR_BUNDLE_PATH, FAVICON_PATH, FAVICON_FALLBACK_PATH];

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

/**
 * The page's policy: its own scripts and styles only, API calls to this origin only, no frames,
 * no inline code. Log bodies are hostile input; the page renders them as text, and this policy is
 * the second wall should that ever fail.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

const NOT_BUILT = [
  "The dashboard is not built.",
  "Build it with `npm run build:dashboard` (npm start and npm test build it themselves), then reload.",
  "",
].join("\n");

/** Reads a file, or undefined when it is not there. */
async function readOptional(path: string): Promise<Uint8Array<ArrayBuffer> | undefined> {
  try {
    const file = await readFile(path);
    return new Uint8Array(file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer);
  } catch {
    return undefined;
  }
}

/** `distDir` is where the built files are (tests point it elsewhere). */
export function registerDashboard(app: GatewayApp, options: { distDir?: string } = {}): void {
  const dist = options.distDir ?? DIST;
  app.get(PAGE_PATH, async (c) => {
    const html = await readOptional(join(dist, "index.html"));
    if (!html) return c.text(NOT_BUILT, 503, { "cache-control": "no-store" });
    return c.body(html, 200, {
      "content-type": CONTENT_TYPES[".html"]!,
      "cache-control": "no-cache",
      "content-security-policy": DASHBOARD_CSP,
      ...SECURITY_HEADERS,
    });
  });

  let scalarScript: Promise<Uint8Array<ArrayBuffer> | undefined> | undefined;
  app.get(SCALAR_BUNDLE_PATH, async (c) => {
    scalarScript ??= readScalarBundle();
    const script = await scalarScript;
    if (!script) {
      scalarScript = undefined;
      return c.text("Scalar's browser bundle is not installed: run npm ci.\n", 404);
    }
    return c.body(script, 200, { "content-type": CONTENT_TYPES[".js"]!, "cache-control": "public, max-age=3600", ...SECURITY_HEADERS });
  });

  for (const path of [FAVICON_PATH, FAVICON_FALLBACK_PATH]) {
    app.get(path, (c) => c.body(FAVICON, 200, { "content-type": CONTENT_TYPES[".svg"]!, "cache-control": "public, max-age=86400", ...SECURITY_HEADERS }));
  }

  // Hashed names: a file's content never changes under its name.
  app.get(ASSET_PATH, async (c) => {
    const name = c.req.param("name");
    const type = CONTENT_TYPES[extname(name)];
    const path = normalize(join(dist, "assets", name));
    if (!type || !path.startsWith(join(dist, "assets") + sep)) throw new GatewayError("not_found", "No such dashboard asset.");
    const file = await readOptional(path);
    if (!file) throw new GatewayError("not_found", "No such dashboard asset.");
    return c.body(file, 200, { "content-type": type, "cache-control": "public, max-age=31536000, immutable", ...SECURITY_HEADERS });
  });
}
