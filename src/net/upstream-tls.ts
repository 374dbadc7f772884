import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import type { GatewayConfig } from "../config.ts";

/**
 * Mutual TLS towards the upstream (`UPSTREAM_MTLS_*`): the client key and certificate every
 * upstream connection presents, and optionally the CA the upstream's server certificate is
 * checked against in place of the system's. PEM texts, read once at start.
 */
export interface UpstreamTls {
  key: string;
  cert: string;
  ca?: string;
}

/**
 * Where the client certificate cannot be presented, in one place (docs/providers.md lists the same).
 * A TLS server asks for a client certificate or not; one that does not never sees it, and the key
 * never leaves the gateway. Everything else that connects upstream presents it: every HTTP
 * operation and the pass-through (`deps.fetch`), realtime sessions (the WebSocket client of
 * Node and of Bun), and guardrail webhooks, which share `deps.fetch`.
 */
export const MTLS_UNSUPPORTED: readonly { what: string; why: string }[] = [
  { what: "upstreams reached over plain http:// (a custom host such as a local Ollama)", why: "there is no TLS handshake to present a certificate in" },
];

/** A start-up mistake in the mTLS files: the message names the variable, never a key's content. */
export class UpstreamTlsError extends Error {}

/**
 * Reads and checks the mTLS files the config names; null when mTLS is off. Throws
 * `UpstreamTlsError` when only one of key and certificate is set, a file cannot be read or
 * parsed, or the key is not the certificate's.
 */
export function loadUpstreamTls(config: Pick<GatewayConfig, "UPSTREAM_MTLS_KEY_PATH" | "UPSTREAM_MTLS_CERT_PATH" | "UPSTREAM_MTLS_CA_PATH">): UpstreamTls | null {
  const keyPath = config.UPSTREAM_MTLS_KEY_PATH;
  const certPath = config.UPSTREAM_MTLS_CERT_PATH;
  if (!keyPath && !certPath) {
    if (config.UPSTREAM_MTLS_CA_PATH) throw new UpstreamTlsError("UPSTREAM_MTLS_CA_PATH is set without UPSTREAM_MTLS_KEY_PATH and UPSTREAM_MTLS_CERT_PATH: set all of them for mutual TLS, or none.");
    return null;
  }
  if (!keyPath || !certPath) {
    const missing = keyPath ? "UPSTREAM_MTLS_CERT_PATH" : "UPSTREAM_MTLS_KEY_PATH";
    throw new UpstreamTlsError(`${missing} is not set: mutual TLS needs both UPSTREAM_MTLS_KEY_PATH and UPSTREAM_MTLS_CERT_PATH.`);
  }
  const key = readPem("UPSTREAM_MTLS_KEY_PATH", keyPath);
  const cert = readPem("UPSTREAM_MTLS_CERT_PATH", certPath);
  const ca = config.UPSTREAM_MTLS_CA_PATH ? readPem("UPSTREAM_MTLS_CA_PATH", config.UPSTREAM_MTLS_CA_PATH) : undefined;

  const privateKey = parse("UPSTREAM_MTLS_KEY_PATH", keyPath, "a PEM private key", () => createPrivateKey(key));
  const certificate = parse("UPSTREAM_MTLS_CERT_PATH", certPath, "a PEM certificate", () => new X509Certificate(cert));
  if (ca !== undefined) parse("UPSTREAM_MTLS_CA_PATH", config.UPSTREAM_MTLS_CA_PATH!, "a PEM certificate", () => new X509Certificate(ca));
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new UpstreamTlsError(`UPSTREAM_MTLS_KEY_PATH (${keyPath}) is not the private key of the certificate in UPSTREAM_MTLS_CERT_PATH (${certPath}).`);
  }
  return ca === undefined ? { key, cert } : { key, cert, ca };
}

function readPem(variable: string, path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new UpstreamTlsError(`${variable}: cannot read ${path} (${typeof code === "string" ? code : "unreadable"}).`);
  }
}

/** Runs a parser; its own message could quote the file, so only the variable and path are said. */
function parse<T>(variable: string, path: string, expected: string, read: () => T): T {
  try {
    return read();
  } catch {
    throw new UpstreamTlsError(`${variable}: ${path} does not hold ${expected}.`);
  }
}
