import { useEffect, useState } from "preact/hooks";

/**
 * Hash routing: `#/logs?user=alice` is the view `logs` with its filters. Every view keeps its
 * state here so a view can be shared by its address; the key never is.
 */
export interface Route {
  path: string[];
  params: URLSearchParams;
}

export function currentRoute(): Route {
  const hash = location.hash.replace(/^#/, "") || "/logs";
  const [path = "", query = ""] = hash.split("?", 2);
  return { path: path.split("/").filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(query) };
}

export function href(path: string, params?: URLSearchParams | Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  if (params instanceof URLSearchParams) params.forEach((value, name) => value !== "" && search.append(name, value));
  else if (params) for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== "") search.set(name, value);
  const query = search.toString();
  return `#${path}${query ? `?${query}` : ""}`;
}

export function navigate(path: string, params?: URLSearchParams | Record<string, string | undefined>, replace = false): void {
  const target = href(path, params);
  if (replace) history.replaceState(null, "", target);
  else location.hash = target;
  if (replace) dispatchEvent(new HashChangeEvent("hashchange"));
}

export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    addEventListener("hashchange", update);
    return () => removeEventListener("hashchange", update);
  }, []);
  return route;
}
