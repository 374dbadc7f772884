import { fileURLToPath } from "node:url";

/**
 * What every connection to the embedded SQLite file shares. Kept apart from the libSQL
 * dialect so the Bun log worker can use it without loading a second SQLite engine.
 */

/** How long a write waits for another connection's lock before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5_000;

/**
 * Page size of a newly created database file (SQLite fixes it when the first table is made,
 * and WAL mode keeps it). Log rows carry both bodies, about 2 KB; on 16 KiB pages a batch of
 * them takes a quarter of the write calls 4 KiB pages need, which cut the log worker's cost
 * per row by about a quarter. Existing files keep their page size.
 */
export const PAGE_SIZE_BYTES = 16_384;

/** The filesystem path of a `file:` URL, with or without the `//` authority. */
export function filePath(url: string): string {
  const withoutQuery = url.split("?")[0] ?? url;
  if (withoutQuery.startsWith("file://")) return fileURLToPath(withoutQuery);
  return decodeURIComponent(withoutQuery.slice("file:".length));
}
