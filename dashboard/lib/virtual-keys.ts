import { useEffect, useState } from "preact/hooks";
import { api, type Session } from "./api.ts";
import type { List, VirtualKey } from "./types.ts";

let cache: Promise<VirtualKey[]> | null = null;

/** The workspace's virtual keys for an admin key (to name them in tables); none for a service key. */
export function useVirtualKeys(session: Session): VirtualKey[] {
  const [keys, setKeys] = useState<VirtualKey[]>([]);
  useEffect(() => {
    if (session.role !== "admin") return;
    cache ??= api<List<VirtualKey>>("/v1/virtual-keys").then((list) => list.data, () => []);
    cache.then(setKeys);
  }, [session.role]);
  return keys;
}

/** Forget the cached list after a change. */
export function invalidateVirtualKeys(): void {
  cache = null;
}
