import { Readable } from "node:stream";
import { describeClickHouseTarget, type ClickHouseTarget } from "./clickhouse-url.ts";

/** The few calls the log store makes to ClickHouse, over one HTTP client. */
export interface ClickHouseConnection {
  /** The server's release, e.g. `18.16.1`. */
  version: string;
  /** Runs a statement that returns no rows (DDL, ALTER). */
  command(statement: string): Promise<void>;
  /** The rows of a query, as JSON objects (64-bit integers come back as strings). */
  rows<T = Record<string, unknown>>(query: string): Promise<T[]>;
  /** Inserts rows in one request (one block per partition on the server). */
  insert(table: string, rows: readonly Record<string, unknown>[]): Promise<void>;
  /** Inserts TabSeparated text (whole lines, in chunks) into `columns` of `table`, in one request. */
  insertTabSeparated(table: string, columns: readonly string[], chunks: readonly Buffer[]): Promise<void>;
  close(): Promise<void>;
}

/** A failed call, named without the URL or credentials. */
export class ClickHouseStoreError extends Error {
  override name = "ClickHouseStoreError";
}

/**
 * Opens the official client (imported here, on first use: a gateway without a ClickHouse log
 * store never loads it) and asks the server its release. ClickHouse before 19 types
 * `LowCardinality` as experimental: the setting that allows it is sent to those releases only.
 */
export async function connectClickHouse(target: ClickHouseTarget, options: { requestTimeoutMs?: number } = {}): Promise<ClickHouseConnection> {
  const { createClient, ClickHouseLogLevel } = await import("@clickhouse/client");
  const base = {
    url: target.endpoint,
    username: target.username,
    password: target.password,
    database: target.database,
    request_timeout: options.requestTimeoutMs ?? 60_000,
    log: { level: ClickHouseLogLevel.OFF },
  };
  const open = (settings: { clickhouse_settings?: Record<string, number> } = {}) => createClient({ ...base, ...settings, connection: target.transport?.() });
  const probe = open();
  let version: string;
  try {
    const [row] = await (await probe.query({ query: "SELECT version() AS version", format: "JSONEachRow" })).json<{ version: string }>();
    version = row?.version ?? "0";
  } catch (error) {
    throw new ClickHouseStoreError(`the ClickHouse log store at ${describeClickHouseTarget(target)} did not answer: ${messageOf(error)}`);
  } finally {
    await probe.close();
  }
  const major = Number.parseInt(version, 10);
  const client = open({ clickhouse_settings: major < 19 ? { allow_experimental_low_cardinality_type: 1 } : {} });
  const wrap = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw new ClickHouseStoreError(`ClickHouse log store ${what} failed: ${messageOf(error)}`);
    }
  };
  return {
    version,
    command: (statement) => wrap("statement", async () => void (await client.command({ query: statement }))),
    rows: <T>(query: string) => wrap("query", async () => (await client.query({ query, format: "JSONEachRow", clickhouse_settings: READ_SETTINGS })).json<T>()),
    insert: (table, rows) => wrap(`insert into ${table}`, async () => void (await client.insert({ table, values: rows as Record<string, unknown>[], format: "JSONEachRow" }))),
    insertTabSeparated: (table, columns, chunks) =>
      wrap(`insert into ${table}`, async () => {
        const quoted = columns.map((column) => `\`${column}\``) as [string, ...string[]];
        await client.insert({ table, columns: quoted, values: Readable.from(chunks, { objectMode: false }), format: "TabSeparated" });
      }),
    close: () => client.close(),
  };
}

/**
 * The dashboard's reads are short and repeated over the same rollup rows: ClickHouse keeps their
 * decompressed blocks in its uncompressed cache (off by default) instead of decompressing them
 * again from the page cache or the disk on every query.
 */
const READ_SETTINGS = { use_uncompressed_cache: 1 } as const;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
