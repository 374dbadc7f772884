/**
 * Access tokens per service account, reused until shortly before they expire. Keyed by a
 * SHA-256 of the key's text, so the map holds no key; bounded, the oldest entry leaving first.
 * Concurrent requests for one account share one mint; a failed mint is not kept.
 */
import { createHash } from "node:crypto";
import { GatewayError } from "../../errors.ts";
import type { MintedToken } from "./mint-token.ts";

/** A token is renewed this long before its expiry (Google's live an hour), so none expires in flight. */
export const REFRESH_MARGIN_MS = 5 * 60_000;
export const MAX_CACHED_ACCOUNTS = 500;

export interface TokenCache {
  /** The cached token for `keyText`, or a new one from `mint`. Never throws. */
  get(keyText: string, mint: () => Promise<MintedToken | GatewayError>): Promise<string | GatewayError>;
  readonly size: number;
}

export function createTokenCache(options: { now?: () => number; maxEntries?: number } = {}): TokenCache {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? MAX_CACHED_ACCOUNTS;
  const tokens = new Map<string, MintedToken>();
  const minting = new Map<string, Promise<MintedToken | GatewayError>>();

  function remember(id: string, token: MintedToken): void {
    tokens.delete(id);
    while (tokens.size >= maxEntries) {
      const oldest = tokens.keys().next().value;
      if (oldest === undefined) break;
      tokens.delete(oldest);
    }
    tokens.set(id, token);
  }

  return {
    get size() {
      return tokens.size;
    },
    async get(keyText, mint) {
      const id = createHash("sha256").update(keyText).digest("hex");
      const cached = tokens.get(id);
      if (cached && now() < cached.expiresAt - REFRESH_MARGIN_MS) return cached.accessToken;
      let pending = minting.get(id);
      if (!pending) {
        pending = mint().then(
          (minted) => minted,
          () => new GatewayError("internal_error", "Minting a Vertex AI access token failed."),
        );
        minting.set(id, pending);
        void pending.finally(() => minting.delete(id));
      }
      const minted = await pending;
      if (minted instanceof GatewayError) return minted;
      remember(id, minted);
      return minted.accessToken;
    },
  };
}
