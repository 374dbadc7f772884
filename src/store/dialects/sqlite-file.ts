import { fileURLToPath } from "node:url";

/**
 * What every connection to the embedded SQLite file shares. Kept apart from the libSQL
 * dialect so the Bun log worker can use it without loading a second SQLite engine.
 */

/** How long a write waits for another connection's lock before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5_000;

/** The filesystem path of a `file:` URL, with or without the `//` authority. */
export function filePath(url: string): string {
  const withoutQuery = url.split("?")[0] ?? url;
  if (withoutQuery.startsWith("file://")) return fileURLToPath(withoutQuery);
  return decodeURIComponent(withoutQuery.slice("file:".length));
}
