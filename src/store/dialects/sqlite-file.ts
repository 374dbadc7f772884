import { fileURLToPath } from "node:url";

/**
 * What every connection to the embedded SQLite file shares, whichever engine opens it: libSQL
 * under Node, Bun's built-in SQLite under Bun. Kept apart from both dialects so neither loads
 * the other's engine.
 */

/** How long a write waits for another connection's lock before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5_000;

/**
 * Page size of a newly created database file (SQLite fixes it when the first table is made,
 * and WAL mode keeps it). Log rows carry both bodies, about 2 KB; on 16 KiB pages a batch of
 * them takes a quarter of the write calls 4 KiB pages need. Existing files keep their page size.
 */
export const PAGE_SIZE_BYTES = 16_384;

/** The filesystem path of a `file:` URL, with or without the `//` authority. */
export function filePath(url: string): string {
  const withoutQuery = url.split("?")[0] ?? url;
  if (withoutQuery.startsWith("file://")) return fileURLToPath(withoutQuery);
  return decodeURIComponent(withoutQuery.slice("file:".length));
}

/** Rows `ANALYZE` samples per index: enough to rank the indexes, and quick on any table size. */
export const ANALYSIS_ROW_LIMIT = 1_000;

/**
 * The statements every store connection to a SQLite file runs first, in order, whichever engine
 * opens it. The page size comes before WAL (only then can a new file still take it; an existing
 * file ignores it). WAL lets readers run beside the writer; the busy timeout makes a writer wait
 * for another connection's lock; `synchronous=NORMAL` is the usual WAL pairing: a power cut may
 * lose the last commits but never corrupts the file.
 */
export function sqliteSetupStatements(url: string): string[] {
  const analysis = `PRAGMA analysis_limit=${ANALYSIS_ROW_LIMIT}`;
  if (url === ":memory:") return [analysis];
  return [
    `PRAGMA page_size=${PAGE_SIZE_BYTES}`,
    "PRAGMA journal_mode=WAL",
    `PRAGMA busy_timeout=${BUSY_TIMEOUT_MS}`,
    "PRAGMA synchronous=NORMAL",
    analysis,
  ];
}
