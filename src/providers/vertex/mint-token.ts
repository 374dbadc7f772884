/**
 * An OAuth access token for a service account, minted with google-auth-library: it signs the
 * JWT assertion (RS256, scope `cloud-platform`) and exchanges it at the token endpoint. The
 * library is loaded on the first mint, so a gateway that never reaches Vertex with a key never
 * loads it. Never throws: failures are `GatewayError`s that name neither key nor token.
 * https://developers.google.com/identity/protocols/oauth2/service-account#httprest
 * https://cloud.google.com/nodejs/docs/reference/google-auth-library/latest/google-auth-library/jwt
 */
import { GatewayError } from "../../errors.ts";
import type { FetchLike } from "../../net/upstream-call.ts";
import { GOOGLE_TOKEN_URI, type ServiceAccount } from "./service-account.ts";

export const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";
/** How long one exchange may take, retries included by the library. */
const TOKEN_TIMEOUT_MS = 10_000;

export interface MintedToken {
  accessToken: string;
  /** When Google says the token expires, in epoch milliseconds. */
  expiresAt: number;
}

/**
 * `fetch` is the gateway's pinned fetch: a `token_uri` on the upstream's host (a custom host,
 * checked by the SSRF guard) is posted to through it, so the exchange connects only where the
 * upstream request may, and never follows a redirect. Google's own endpoint keeps the library's fetch.
 */
export async function mintAccessToken(account: ServiceAccount, fetch?: FetchLike): Promise<MintedToken | GatewayError> {
  try {
    const { JWT } = await import("google-auth-library");
    const pinned = account.tokenUri !== GOOGLE_TOKEN_URI && fetch ? { fetchImplementation: pinnedFetchFor(fetch) } : {};
    const client = new JWT({
      email: account.email,
      key: account.privateKey,
      scopes: [CLOUD_PLATFORM_SCOPE],
      transporterOptions: { timeout: TOKEN_TIMEOUT_MS, ...pinned },
    });
    if (account.tokenUri !== GOOGLE_TOKEN_URI) {
      // The library posts to Google's endpoint; a vetted token_uri on the upstream's host replaces it.
      const tokenUrl = new URL(account.tokenUri);
      client.transporter.interceptors.request.add({
        resolved: async (options) => {
          options.url = tokenUrl;
          return options;
        },
      });
    }
    const credentials = await client.authorize();
    if (!credentials.access_token) return refused("the token endpoint answered without an access token");
    return { accessToken: credentials.access_token, expiresAt: credentials.expiry_date ?? Date.now() + 3_000_000 };
  } catch (error) {
    return mintError(error);
  }
}

/** The library's fetch (URL objects, its own options) onto the gateway's: string URLs, redirects answered, not followed. */
function pinnedFetchFor(fetch: FetchLike): typeof globalThis.fetch {
  return ((input: string | URL | Request, init?: RequestInit) =>
    fetch(input instanceof Request ? input.url : String(input), { ...init, redirect: "manual" })) as typeof globalThis.fetch;
}

/** A refusal (400/401 from the endpoint, a key that cannot sign) is the caller's; no answer at all is 502. */
function mintError(error: unknown): GatewayError {
  // The SSRF guard's refusal of the token host, wrapped by the library (and, under Node, by fetch).
  for (let cause = error, depth = 0; cause && depth < 4; cause = (cause as { cause?: unknown }).cause, depth++) {
    if (cause instanceof GatewayError) return cause;
  }
  const status = typeof error === "object" && error !== null && "status" in error && typeof error.status === "number" ? error.status : undefined;
  const message = error instanceof Error ? error.message.slice(0, 200) : "unknown error";
  if (status === undefined && /ECONNREFUSED|ENOTFOUND|ETIMEDOUT|ECONNRESET|fetch failed|timeout|aborted/i.test(message)) {
    return new GatewayError("upstream_unreachable", "Google's token endpoint could not be reached to mint a Vertex AI access token.");
  }
  if (status !== undefined && status >= 500) {
    return new GatewayError("upstream_error", `Google's token endpoint failed (HTTP ${status}) to mint a Vertex AI access token.`, { status: 502 });
  }
  return refused(status === undefined ? "the key could not sign the assertion" : `HTTP ${status}: ${oauthError(message)}`);
}

function refused(why: string): GatewayError {
  return new GatewayError("invalid_api_key", `Google refused the Vertex AI service-account key (${why}).`, { param: "authorization" });
}

/** The OAuth error name google-auth-library puts first in its message (`invalid_grant: …`), else a generic word. */
function oauthError(message: string): string {
  const name = /^([a-z_]+):/.exec(message)?.[1];
  return name ?? "token request refused";
}
