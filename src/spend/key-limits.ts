import type { ControlPlaneCache } from "../control-plane/cache.ts";
import type { KeyLimits } from "../records/control-plane.ts";
import type { Store } from "../store/open-store.ts";

/** A virtual key's limits and slug (for messages); null when it has neither budget nor rate limit. */
export interface VirtualKeyLimits {
  slug: string;
  limits: KeyLimits;
}

/**
 * The limits of a target's virtual key, which the target names by id only. Read through the
 * control-plane cache (kind `virtual-key-limits`), so the request path reads the database at
 * most once per key and TTL; writers forget it with the key's other entries.
 */
export function virtualKeyLimits(
  deps: { controlPlane: ControlPlaneCache; store: Pick<Store, "virtualKeys"> },
  workspaceId: string,
  id: string,
): Promise<VirtualKeyLimits | null> {
  return deps.controlPlane.get("virtual-key-limits", workspaceId, id, async () => {
    const record = await deps.store.virtualKeys.getById(workspaceId, id);
    if (!record || (!record.budget && !record.rateLimit)) return null;
    return { slug: record.slug, limits: { budget: record.budget, rateLimit: record.rateLimit } };
  });
}
