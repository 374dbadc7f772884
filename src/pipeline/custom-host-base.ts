import { fail, GatewayError, ok, type Result } from "../errors.ts";
import type { Provider } from "../providers/provider.ts";

/** Distinct (provider, custom host) texts whose base URL is remembered; past this, it is worked out each time. */
const MEMO_LIMIT = 1_000;
const baseUrls = new Map<string, Result<string, GatewayError>>();
const needsPath = new WeakMap<Provider, boolean>();

/**
 * The base URL a custom host gives a provider, once the custom-host guard has passed it (`url` is
 * the guard's parse of `raw`). Operation paths are appended to it, so a query or fragment, which
 * would swallow them, is refused; and where the provider's API lives under a base path (`/v1`),
 * a host written with no path at all (`http://127.0.0.1:11434`) is refused rather than sent
 * requests its server answers 404: the message says to add the path, or to write a final `/`
 * for a server that serves the API at its root. Worked out once per distinct text, provider and field.
 */
export function customHostBaseUrl(provider: Provider, raw: string, url: Readonly<URL>, param: string): Result<string, GatewayError> {
  const key = `${provider.id}\n${param}\n${raw}`;
  const known = baseUrls.get(key);
  if (known) return known;
  const result = baseUrlOf(provider, raw, url, param);
  if (baseUrls.size < MEMO_LIMIT) baseUrls.set(key, result);
  return result;
}

function baseUrlOf(provider: Provider, raw: string, url: Readonly<URL>, param: string): Result<string, GatewayError> {
  if (url.search !== "" || url.hash !== "" || /[?#]/.test(raw)) {
    return fail(new GatewayError("invalid_request", "A custom host is a base URL: it may not carry a query or fragment.", { param }));
  }
  if (!hasWrittenPath(raw) && customHostNeedsPath(provider)) {
    return fail(
      new GatewayError(
        "invalid_request",
        `Custom host "${url.origin}" has no path: provider ${provider.id} is reached under its API's base path, usually /v1 ("${url.origin}/v1"), ` +
          `to which the operation's path (/chat/completions) is appended. For a server that serves the API at its root, write "${url.origin}/".`,
        { param },
      ),
    );
  }
  return ok(url.href.replace(/\/+$/, ""));
}

/** Whether the text names a path after its authority (`http://host/…`, `http://host/`), not only a host. */
function hasWrittenPath(raw: string): boolean {
  const authority = raw.indexOf("//");
  return authority !== -1 && raw.indexOf("/", authority + 2) !== -1;
}

function customHostNeedsPath(provider: Provider): boolean {
  let needs = needsPath.get(provider);
  if (needs === undefined) {
    needs = provider.customHostNeedsPath ?? (provider.baseUrl !== null && new URL(provider.baseUrl).pathname !== "/");
    needsPath.set(provider, needs);
  }
  return needs;
}
