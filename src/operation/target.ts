import type { Credentials, Provider } from "../providers/provider.ts";

/** One concrete upstream: provider, base URL, credentials and the model as sent there. */
export interface Target {
  provider: Provider;
  baseUrl: string;
  credentials: Credentials;
  /** Model id as sent upstream; null when the request names none (a body without `model`). */
  model: string | null;
  /** Set when a stored virtual key supplied the credentials. */
  virtualKeyId: string | null;
}
