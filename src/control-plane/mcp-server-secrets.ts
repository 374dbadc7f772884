import type { SecretBox } from "../crypto/secret-box.ts";
import { GatewayError } from "../errors.ts";
import { MASKED_SECRET, openSealedSecret, sealSecret, type SealedSecret } from "../crypto/sealed-secret.ts";
import type { McpServerRecord } from "../records/control-plane.ts";
import { movedSecretError, sameUrl } from "../records/secret-destinations.ts";

/**
 * The secrets of a stored MCP server: its bearer token and its header values. Sealed at rest,
 * masked in every view, opened only when a request connects to the server's own URL. A mask
 * sent back keeps the stored value, and only while the URL stays the same: pointing a kept
 * secret at another host takes the secret itself.
 */

/** What a create or update says of the secrets: absent keeps (update), a string sets, null clears. */
export interface SentSecrets {
  authorization?: string | null;
  headers?: Record<string, string>;
}

export interface SealedSecrets {
  authorization?: SealedSecret | null;
  headers?: Record<string, SealedSecret>;
}

/**
 * The secrets to store. `previous` is the server an update changes (null for a create);
 * `urlChanged` says whether the update gives a new URL. Throws only GatewayError (400).
 */
export function sealMcpSecrets(sent: SentSecrets, box: SecretBox, previous: McpServerRecord | null, newUrl: string | undefined): SealedSecrets {
  const moved = previous !== null && newUrl !== undefined && !sameUrl(newUrl, previous.url);
  const sealed: SealedSecrets = {};
  if (sent.authorization === MASKED_SECRET) {
    if (!previous?.authorization) throw maskWithoutSecret("authorization");
    if (moved) throw movedSecretError("server_url", "the stored authorization", "send authorization again (in clear) to change the URL.");
  } else if (sent.authorization !== undefined) {
    sealed.authorization = sent.authorization === null ? null : sealSecret(sent.authorization, box);
  } else if (moved && previous?.authorization) {
    throw movedSecretError("server_url", "the stored authorization", "send authorization again (in clear) to change the URL.");
  }
  if (sent.headers !== undefined) {
    const headers: Record<string, SealedSecret> = {};
    for (const [name, value] of Object.entries(sent.headers)) {
      if (value !== MASKED_SECRET) {
        headers[name] = sealSecret(value, box);
        continue;
      }
      const kept = storedHeader(previous, name);
      if (!kept) throw maskWithoutSecret(`headers.${name}`);
      if (moved) throw movedSecretError("server_url", `the stored header ${name}`, "send the header values again (in clear) to change the URL.");
      headers[name] = kept;
    }
    sealed.headers = headers;
  } else if (moved && previous && Object.keys(previous.headers).length > 0) {
    throw movedSecretError("server_url", "the stored header values", "send the header values again (in clear) to change the URL.");
  }
  return sealed;
}

/** The headers a connection to the server sends: its header values and token, opened; null when one does not open. Never throws. */
export function openMcpHeaders(server: McpServerRecord, box: SecretBox): Record<string, string> | null {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(server.headers)) {
    const opened = openSealedSecret(value, box);
    if (opened === null) return null;
    headers[name] = opened;
  }
  if (server.authorization) {
    const token = openSealedSecret(server.authorization, box);
    if (token === null) return null;
    headers.Authorization = `Bearer ${token}`;
  }
  return headers;
}

/** Header names with every value masked, as views show them. */
export function maskedHeaders(headers: Record<string, SealedSecret>): Record<string, string> {
  return Object.fromEntries(Object.keys(headers).map((name) => [name, MASKED_SECRET]));
}

function storedHeader(previous: McpServerRecord | null, name: string): SealedSecret | undefined {
  if (!previous) return undefined;
  const key = Object.keys(previous.headers).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : previous.headers[key];
}

function maskWithoutSecret(param: string): GatewayError {
  return new GatewayError("invalid_request", `${param} is the mask of a stored value, but none is stored there: send the value itself.`, { param });
}
