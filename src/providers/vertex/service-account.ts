/**
 * A Google service-account key as the gateway accepts it (pure): the JSON Google issues, of type
 * `service_account`, with its client e-mail and private key. Google warns against using a
 * credential configuration from outside unchecked, so only this shape is read, and the key's
 * `token_uri` is honoured only where the gateway would send the request anyway.
 * https://cloud.google.com/iam/docs/keys-create-delete
 * https://cloud.google.com/docs/authentication/external/externally-sourced-credentials
 */
import { z } from "zod";
import { GatewayError } from "../../errors.ts";

/** Google's token endpoint; google-auth-library posts the signed assertion there. */
export const GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token";
/** Token URIs Google has written in service-account keys; each means Google's endpoint. */
const GOOGLE_TOKEN_HOSTS: ReadonlySet<string> = new Set(["oauth2.googleapis.com", "accounts.google.com", "www.googleapis.com"]);

/**
 * Built on first use, not at import: this module is reached through the provider catalogue from
 * nearly everywhere, and an import cycle evaluated in another order (Bun's test runner) can reach
 * it before zod's bindings are ready.
 */
let keySchema: ReturnType<typeof serviceAccountKeySchema> | null = null;

function serviceAccountKeySchema() {
  return z.object({
    type: z.literal("service_account"),
    client_email: z.string().min(3).max(320).includes("@"),
    private_key: z.string().min(100).max(10_000).includes("PRIVATE KEY"),
    token_uri: z.url({ protocol: /^https?$/ }).optional(),
  });
}

export interface ServiceAccount {
  email: string;
  privateKey: string;
  /** Where to post the signed assertion: Google's endpoint, or one on the upstream's own host. */
  tokenUri: string;
}

const PARAM = "authorization";

/**
 * The service account in `text` (a JSON key), to mint tokens for a request to `upstreamUrl`; a
 * 400 that never echoes the key when it is not one. A `token_uri` off Google is accepted only
 * on the host the request goes to (a proxy in front of Google, a test double), a host the
 * gateway already vetted as the upstream: the signed assertion is a credential, and must not go
 * to a host the key's holder picked.
 */
export function readServiceAccount(text: string, upstreamUrl: string): ServiceAccount | GatewayError {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return new GatewayError("invalid_request", "The Vertex AI key starts with '{' but is not valid JSON: send a service-account JSON key, or an OAuth access token.", { param: PARAM });
  }
  keySchema ??= serviceAccountKeySchema();
  const parsed = keySchema.safeParse(json);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join(".") || "(root)"))].join(", ");
    return new GatewayError("invalid_request", `The Vertex AI key is not a service-account JSON key (type "service_account", client_email, private_key): check ${fields}.`, {
      param: PARAM,
    });
  }
  const key = parsed.data;
  const tokenUri = key.token_uri ?? GOOGLE_TOKEN_URI;
  const tokenHost = new URL(tokenUri).hostname;
  const google = GOOGLE_TOKEN_HOSTS.has(tokenHost) && tokenUri.startsWith("https://");
  if (!google && tokenHost !== new URL(upstreamUrl).hostname) {
    return new GatewayError("invalid_request", "The service-account key's token_uri is neither Google's token endpoint nor on the upstream's host.", { param: PARAM });
  }
  return { email: key.client_email, privateKey: key.private_key, tokenUri: google ? GOOGLE_TOKEN_URI : tokenUri };
}
