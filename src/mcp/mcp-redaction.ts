/**
 * A server's secrets kept out of everything a tool run passes on: its bearer token (bare and as
 * `Bearer <token>`), every header value, and credential query values of its URL are replaced by
 * `[redacted]` in the errors, results and listings of its session, before they reach the client,
 * the log or the model's next round. They are found as the gateway finds an upstream's echoed
 * key (`net/sent-credentials.ts`): as sent, URL-encoded and JSON-escaped, nested.
 */
import { scrubEncoded, sentSecrets } from "../net/sent-credentials.ts";

export interface McpRedactor {
  /** Text with every secret of the server replaced. */
  text(text: string): string;
  /** A JSON value with every secret replaced in its text; the value itself when none occurs. */
  json<T>(value: T, fallback: T): T;
}

/** Shorter header values are redacted from error text only: in results they would mangle words. */
const MIN_ERROR_SECRET = 4;

/** The redactor of one server's headers and URL. Never throws. */
export function mcpRedactor(url: string, headers: Readonly<Record<string, string>>): McpRedactor & { error(text: string): string } {
  const found = new Set<string>(sentSecrets({ url, headers: {} }));
  // Every header value is a secret here, whatever its name: each is read as a credential header.
  for (const value of Object.values(headers)) for (const secret of sentSecrets({ url: "", headers: { authorization: value } })) found.add(secret);
  const secrets = [...found].sort((a, b) => b.length - a.length);
  const short = Object.values(headers)
    .map((value) => value.trim())
    .filter((value) => value.length >= MIN_ERROR_SECRET && !found.has(value));
  const errorSecrets = [...secrets, ...short].sort((a, b) => b.length - a.length);
  const text = (value: string): string => (secrets.length === 0 || value === "" ? value : scrubEncoded(value, secrets));
  return {
    text,
    error: (value) => (errorSecrets.length === 0 || value === "" ? value : scrubEncoded(value, errorSecrets)),
    json<T>(value: T, fallback: T): T {
      if (secrets.length === 0) return value;
      const serialised = JSON.stringify(value);
      if (serialised === undefined) return value;
      const scrubbed = text(serialised);
      if (scrubbed === serialised) return value;
      try {
        return JSON.parse(scrubbed) as T;
      } catch {
        return fallback;
      }
    },
  };
}
