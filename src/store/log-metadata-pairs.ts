import { sql, type RawBuilder } from "kysely";

/**
 * PostgreSQL keeps a log's metadata pairs in its own row, `logs.metadata_pairs` (migration 0029):
 * a `text[]` with a GIN index, so `metadata_pairs @> ARRAY[…]` finds the logs holding every
 * filtered pair. Written with the row, they cost the writer a fraction of what a table of pairs
 * with a B-tree did (`docs/logs.md`).
 *
 * A pair is the key as a JSON string followed by the value: `"team"red`. The key's closing quote
 * is its first unescaped one, so no key and value run into another pair whatever they contain.
 */
export function metadataPair(key: string, value: string): string {
  return pairPrefix(key) + value;
}

/**
 * A pair's key part. JSON would write a U+0000 of the key as `\u0000`: it becomes U+FFFD first,
 * as it does in every other string this store keeps (`dialects/postgres-text.ts`), values included.
 */
function pairPrefix(key: string): string {
  return JSON.stringify(key.includes("\u0000") ? key.replaceAll("\u0000", "\uFFFD") : key);
}

/**
 * The record's pairs as a PostgreSQL array literal (`{"\"team\"red"}`), the form both `COPY` and
 * `json_populate_recordset` take for a `text[]` column; `{}` for a log without metadata, so a row
 * written with pairs is told from one stored before them (null).
 */
export function metadataPairsLiteral(metadata: Readonly<Record<string, string>>): string {
  let literal = "";
  for (const key in metadata) {
    const pair = metadataPair(key, metadata[key]!);
    literal += `${literal === "" ? "" : ","}"${pair.replace(QUOTED, "\\$&")}"`;
  }
  return `{${literal}}`;
}

/** Inside a quoted array element, a backslash or a double quote is escaped by a backslash. */
const QUOTED = /["\\]/g;

/** The logs stored with every one of the pairs in their row: what the GIN index finds. */
export function inMetadataPairs(pairs: ReadonlyArray<readonly [string, string]>): RawBuilder<boolean> {
  return sql<boolean>`logs.metadata_pairs @> ARRAY[${sql.join(pairs.map(([key, value]) => sql`${metadataPair(key, value)}`))}]::text[]`;
}

/**
 * The value of a key among a PostgreSQL log row's pairs; null when the log has no such key or
 * was stored before the pairs (its `metadata` JSON is not read: PostgreSQL cannot turn a `\u0000`
 * it holds into text, and one such value would fail the whole query).
 */
export function pairValue(key: string): RawBuilder<string | null> {
  const prefix = pairPrefix(key);
  return sql<string | null>`(SELECT substr(p, length(${prefix}) + 1) FROM unnest(logs.metadata_pairs) AS p WHERE starts_with(p, ${prefix}) LIMIT 1)`;
}
