/**
 * The one way the dashboard talks to the gateway: same origin, the signed-in key in the
 * `x-gateway-api-key` header, the API's own error message surfaced as an `ApiError`.
 */
const KEY_STORAGE = "gateway-dashboard-key";
const ROLE_STORAGE = "gateway-dashboard-role";

export type Role = "admin" | "service";

export interface Session {
  key: string;
  role: Role;
}

export function loadSession(): Session | null {
  const key = sessionStorage.getItem(KEY_STORAGE);
  const role = sessionStorage.getItem(ROLE_STORAGE);
  return key && (role === "admin" || role === "service") ? { key, role } : null;
}

export function saveSession(session: Session | null): void {
  if (!session) {
    sessionStorage.removeItem(KEY_STORAGE);
    sessionStorage.removeItem(ROLE_STORAGE);
    return;
  }
  sessionStorage.setItem(KEY_STORAGE, session.key);
  sessionStorage.setItem(ROLE_STORAGE, session.role);
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null = null,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export function queryString(query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === "") continue;
    params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

let onUnauthorized: () => void = () => {};

/** Called when the gateway answers 401: the stored key no longer works. */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  query?: Query;
  key?: string;
  /** Further headers (a run's `x-gateway-provider`, its upstream key); they may replace `accept`. */
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** The answer may be an upstream's (a run): a 401 with a log id is the upstream refusing its key, not the gateway refusing ours. */
  relaysUpstream?: boolean;
}

export async function request(path: string, options: RequestOptions = {}): Promise<Response> {
  const key = options.key ?? loadSession()?.key;
  const headers: Record<string, string> = { accept: "application/json", ...options.headers };
  if (key) headers["x-gateway-api-key"] = key;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(path + queryString(options.query), {
      method: options.method ?? "GET",
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      cache: "no-store",
      signal: options.signal,
    });
  } catch (failure) {
    if (options.signal?.aborted) throw failure;
    throw new ApiError("The gateway could not be reached.", 0);
  }
  if (!response.ok) {
    const text = await response.text();
    let message = `${response.status} ${response.statusText}`.trim();
    let code: string | null = null;
    let param: string | null = null;
    try {
      const parsed = JSON.parse(text) as { error?: { message?: string; code?: string; param?: string } };
      if (parsed.error?.message) message = parsed.error.message;
      code = parsed.error?.code ?? null;
      param = parsed.error?.param ?? null;
    } catch {
      if (text) message = text.slice(0, 500);
    }
    if (response.status === 401 && !options.key && !(options.relaysUpstream && response.headers.has("x-gateway-log-id"))) onUnauthorized();
    throw new ApiError(message, response.status, code, param);
  }
  return response;
}

export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await request(path, options);
  return (await response.json()) as T;
}

/** Checks a key: admin when it may list keys, service when refused with 403. */
export async function signIn(key: string): Promise<Session> {
  try {
    await api("/v1/api-keys", { key });
    return { key, role: "admin" };
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return { key, role: "service" };
    throw error;
  }
}
