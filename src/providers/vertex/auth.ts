/**
 * Vertex AI authorisation: an OAuth access token as `Authorization: Bearer`. The upstream key
 * (a virtual key's `key`, or the client's bearer value) is read by its first character: `{`
 * opens a service-account JSON key, for which a token is minted and cached; anything else is an
 * access token (from `gcloud auth print-access-token`, workload identity…) sent as it is.
 * https://cloud.google.com/vertex-ai/docs/authentication#rest
 */
import { GatewayError } from "../../errors.ts";
import type { FetchLike } from "../../net/upstream-call.ts";
import type { AuthorizeContext, Credentials, Provider, UpstreamRequest } from "../provider.ts";
import { mintAccessToken, type MintedToken } from "./mint-token.ts";
import { readServiceAccount, type ServiceAccount } from "./service-account.ts";
import { createTokenCache, type TokenCache } from "./token-cache.ts";

/** The process's tokens: one cache, so every target using one service account shares its token. */
const sharedTokens = createTokenCache();

export function vertexAuthorizer(
  tokens: TokenCache = sharedTokens,
  mint: (account: ServiceAccount, fetch?: FetchLike) => Promise<MintedToken | GatewayError> = mintAccessToken,
): Provider["authorize"] {
  return async function authorizeVertex(request: UpstreamRequest, credentials: Credentials, context?: AuthorizeContext): Promise<UpstreamRequest | GatewayError> {
    const key = credentials.apiKey?.trim();
    if (!key) {
      return new GatewayError("invalid_request", "Vertex AI needs credentials: a service-account JSON key or an OAuth access token as the upstream key (Authorization: Bearer, or a virtual key's key).", {
        param: "authorization",
      });
    }
    let token = key;
    if (key.startsWith("{")) {
      const account = readServiceAccount(key, request.url);
      if (account instanceof GatewayError) return account;
      const minted = await tokens.get(key, () => mint(account, context?.fetch));
      if (minted instanceof GatewayError) return minted;
      token = minted;
    }
    return { ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } };
  };
}
