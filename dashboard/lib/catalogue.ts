import { useEffect, useState } from "preact/hooks";
import { api } from "./api.ts";
import type { ModelList } from "./types.ts";

/** The gateway's own catalogue (`GET /v1/models` naming no provider): its providers and their priced models. */
export interface Catalogue {
  providers: string[];
  models: Map<string, string[]>;
}

let cache: Promise<Catalogue> | null = null;

function fromList(list: ModelList): Catalogue {
  const models = new Map<string, string[]>();
  for (const model of list.data) {
    const match = /^@([^/]+)\/(.+)$/.exec(model.id);
    if (!match) continue;
    const [, provider = "", name = ""] = match;
    models.set(provider, [...(models.get(provider) ?? []), name]);
  }
  return { providers: [...models.keys()].sort(), models };
}

/** The catalogue, read once per page; empty while loading or when it cannot be read (the fields stay free text). */
export function useCatalogue(): Catalogue {
  const [catalogue, setCatalogue] = useState<Catalogue>({ providers: [], models: new Map() });
  useEffect(() => {
    cache ??= api<ModelList>("/v1/models").then(fromList, () => ({ providers: [], models: new Map() }));
    cache.then(setCatalogue);
  }, []);
  return catalogue;
}
