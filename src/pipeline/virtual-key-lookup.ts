import type { ControlPlaneCache } from "../control-plane/cache.ts";
import type { VirtualKeyRecord } from "../records/control-plane.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import { fail, GatewayError, ok, type Result } from "../errors.ts";
import type { Store } from "../store/open-store.ts";

export interface VirtualKeyDeps {
  store: Pick<Store, "virtualKeys">;
  controlPlane: ControlPlaneCache;
  secrets: SecretBox;
}

export interface UsableVirtualKey {
  record: VirtualKeyRecord;
  /** The decrypted upstream key: kept only for this request. */
  apiKey: string;
}

/**
 * A virtual key of the caller's workspace by slug, with its secret decrypted. Not found
 * (or deleted) → 400 naming where the slug came from; a secret that does not decrypt (altered,
 * or sealed under another master key) → 400 naming the virtual key, never a 500.
 */
export async function loadVirtualKey(
  slug: string,
  workspaceId: string,
  deps: VirtualKeyDeps,
  param: string,
): Promise<Result<UsableVirtualKey, GatewayError>> {
  const record = await deps.controlPlane.get("virtual-key", workspaceId, slug, async () =>
    (await deps.store.virtualKeys.getBySlug(workspaceId, slug)) ?? null,
  );
  if (!record) {
    return fail(new GatewayError("unknown_provider", `No provider or virtual key "${slug.slice(0, 200)}" in this workspace.`, { param }));
  }
  try {
    return ok({ record, apiKey: deps.secrets.open(record.encryptedKey) });
  } catch {
    return fail(
      new GatewayError(
        "invalid_request",
        `Virtual key "${record.slug}" holds a key that cannot be decrypted (it was altered, or sealed under another GATEWAY_ENCRYPTION_KEY): store the key again.`,
        { param },
      ),
    );
  }
}
