import { sql, type Kysely, type SelectQueryBuilder } from "kysely";
import type { LogFilters, LogRecord } from "../records/log-record.ts";
import { idRangeOf, partitionedById } from "./log-id-bound.ts";
import { listingUpperMs, widening } from "./log-listing-windows.ts";
import { matchesLogFilters } from "./log-filters.ts";
import { toRollupRows, type LogRollupsTable } from "./log-rollup-rows.ts";
import { upsertRollups } from "./log-rollup-sql.ts";
import { fromLogRow, LOG_COLUMNS, LOG_LISTED_COLUMNS, toLogRow, toMetadataRows, toPostgresLogRow, type PostgresLogRow } from "./log-rows.ts";
import type { StoreDialect } from "./dialects/store-dialect.ts";
import { builtPeriodRollupRows, lockBuiltUntil } from "./log-rollup-build.ts";
import { boundMetadataRows, boundWith, storedValues } from "./log-rollup-bound.ts";
import { readDeclaredKeys } from "./declared-keys.ts";
import { inMetadataPairs } from "./log-metadata-pairs.ts";
import type { Database } from "./schema.ts";

export { inTrace, matchesLogFilters, type LogFilterSet } from "./log-filters.ts";

/**
 * Rows per multi-row INSERT. A `logs` row binds one parameter per column, about 40: 500 rows
 * bind about 20,000, under SQLite's 32,766 and PostgreSQL's 65,535 limits. Metadata rows bind 4 each.
 */
const LOG_ROWS_PER_INSERT = 500;
const METADATA_ROWS_PER_INSERT = 2_000;
/**
 * Batches of at least this many records are copied in parts, two at once (`insertBatch`); below
 * it a second transaction's round trips cost more than the overlap saves.
 */
const PARALLEL_COPY_MIN_RECORDS = 400;
/** The most records a part of a big batch holds: a batch of 5,000 goes in four parts. */
const COPY_PART_MAX_RECORDS = 1_250;
/** Parts of a big batch in the database at once, each on its own connection. */
const COPY_PARTS_AT_ONCE = 2;
/** PostgreSQL's SQLSTATE for a duplicate key. */
const UNIQUE_VIOLATION = "23505";

/** Stored request logs. Every read is scoped to one workspace. */
export interface LogsRepository {
  /**
   * Stores the records (and their metadata pairs) in one transaction: all or nothing, and adds
   * them to the analytics rollups in the same transaction. On PostgreSQL a batch of at least
   * `PARALLEL_COPY_MIN_RECORDS` is stored in parts, two at once, each in its own transaction, so
   * a failed batch may leave some parts stored. A record whose id is already stored is skipped
   * (and not counted again), so a retried batch does not fail and stores the rest.
   */
  insertBatch(records: LogRecord[]): Promise<void>;
  /** Resolves when the store answers a trivial query; rejects when it cannot be reached. */
  ping(): Promise<void>;
  /**
   * The workspace's records matching every filter, newest first (by id), at most `limit`
   * (a positive integer); `hasMore` says whether older ones remain (pass the last id as
   * `before`). Listing never reads the bodies: `requestBody`/`responseBody` are null here,
   * use `get` for them, or pass `bodies: true` (the export's full view). `from`/`to` must be
   * ISO 8601 instants.
   */
  list(filters: LogFilters, options?: { bodies?: boolean }): Promise<{ records: LogRecord[]; hasMore: boolean }>;
  /** One record with its bodies, if it belongs to the workspace. */
  get(id: string, workspaceId: string): Promise<LogRecord | undefined>;
  /** Number of records, in one workspace or in all. */
  count(workspaceId?: string): Promise<number>;
}

/** The repository over `logs` and `log_metadata`, writing through the dialect's own batch insert where it has one. */
export function createLogsRepository(
  db: Kysely<Database>,
  writers: Pick<StoreDialect, "insertLogRows" | "bulkRows" | "copyRows" | "rollupsBuiltInBackground"> = {},
): LogsRepository {
  const { insertLogRows: insertRows, bulkRows, copyRows, rollupsBuiltInBackground } = writers;

  /**
   * Copies the rows (a new batch, the common case); when a record is already stored (a retried
   * batch) the copy fails on its key and the rows are inserted instead, skipping the stored ones.
   * Resolves to the ids stored now.
   */
  async function copyOrInsert(trx: Kysely<Database>, rows: PostgresLogRow[]): Promise<Set<string>> {
    await sql`SAVEPOINT log_copy`.execute(trx);
    try {
      await copyRows!(trx, "logs", rows);
      return new Set(rows.map((row) => row.id));
    } catch (error) {
      if ((error as { code?: unknown }).code !== UNIQUE_VIOLATION) throw error;
      await sql`ROLLBACK TO SAVEPOINT log_copy`.execute(trx);
      return new Set(await bulkRows!.logs(trx, rows));
    }
  }

  /**
   * Stores the records, their metadata pairs in their rows, and their rollup deltas in one
   * transaction (PostgreSQL, the one dialect with bulk rows).
   */
  async function storeBulk(records: LogRecord[]): Promise<void> {
    const rows = records.map(toPostgresLogRow);
    await db.transaction().execute(async (trx) => {
      // Where closed hours are summed in the background, only records of hours already built are added here.
      const builtUntil = rollupsBuiltInBackground ? Date.parse(await lockBuiltUntil(trx)) : Infinity;
      // Read under the lock: a declaration takes it exclusively (`analytics-dimensions-repository.ts`).
      const declared = await readDeclaredKeys(trx);
      const storedIds = copyRows ? await copyOrInsert(trx, rows) : new Set(await bulkRows!.logs(trx, rows));
      const stored = records.filter((record) => storedIds.has(record.id));
      const deltas = rollupsBuiltInBackground ? builtPeriodRollupRows(stored, builtUntil, declared) : toRollupRows(stored, declared);
      // In key order, so two halves adding to the same rollup rows take their locks in the same order.
      await bulkRows!.rollups(trx, inKeyOrder(await boundMetadataRows(trx, deltas)));
    });
  }

  const idRange = partitionedById(db);
  return {
    async insertBatch(records) {
      if (records.length === 0) return;
      if (insertRows) {
        const metadataRows = records.flatMap(toMetadataRows);
        const rows = records.map(toLogRow);
        // Holding the connection keeps every other query of this store out while it runs.
        await db.connection().execute(async (connection) => {
          // The engine's transaction is synchronous: what the rollups need is read before it.
          const declared = await readDeclaredKeys(connection);
          const deltas = toRollupRows(records, declared);
          const known = await storedValues(connection, deltas);
          // Only records stored now count in the rollups: a retried batch may have been stored before.
          const storedDeltas = (storedIds: ReadonlySet<string>) =>
            storedIds.size === records.length ? deltas : toRollupRows(records.filter((record) => storedIds.has(record.id)), declared);
          insertRows(rows, metadataRows, (storedIds) => boundWith(known, storedDeltas(storedIds)));
        });
        return;
      }
      if (bulkRows) {
        // A big batch is copied in parts, two at once, each in its own transaction on its own
        // connection: the server's work (mostly index upkeep) runs on two cores, and the writer
        // encodes the next part while the server stores the last. Each part is all or nothing;
        // when one fails no further part starts and the batch fails and is written again, and the
        // parts that committed are skipped record by record like any retried batch, so each
        // record is still stored, and counted, once.
        const parts = copyRows && records.length >= PARALLEL_COPY_MIN_RECORDS ? partsOf(records, Math.max(2, Math.ceil(records.length / COPY_PART_MAX_RECORDS))) : [records];
        await eachAtOnce(parts, COPY_PARTS_AT_ONCE, storeBulk);
        return;
      }
      const metadataRows = records.flatMap(toMetadataRows);
      await db.transaction().execute(async (trx) => {
        const declared = await readDeclaredKeys(trx);
        const storedIds = new Set<string>();
        for (const chunk of chunked(records.map(toLogRow), LOG_ROWS_PER_INSERT)) {
          const stored = await trx.insertInto("logs").values(chunk).onConflict((oc) => oc.column("id").doNothing()).returning("id").execute();
          for (const { id } of stored) storedIds.add(id);
        }
        const deltas = toRollupRows(records.filter((record) => storedIds.has(record.id)), declared);
        await upsertRollups(trx, await boundMetadataRows(trx, deltas));
        for (const chunk of chunked(metadataRows, METADATA_ROWS_PER_INSERT)) {
          await trx
            .insertInto("log_metadata")
            .values(chunk)
            .onConflict((oc) => oc.columns(["log_id", "key"]).doNothing())
            .execute();
        }
      });
    },

    async ping() {
      await sql`select 1`.execute(db);
    },

    async list(filters, options = {}) {
      const limit = Math.max(1, Math.trunc(filters.limit));
      const { before } = filters;
      const columns = options.bodies ? LOG_COLUMNS : LOG_LISTED_COLUMNS;
      const listing = () => db.selectFrom("logs").select(columns);
      const pairs = Object.entries(filters.metadata ?? {});
      // The rows with ids from `lowest` on (all without it), the page's and one more.
      const read = async (lowest?: string) => {
        const page = (query: ReturnType<typeof listing>) => {
          if (before !== undefined) query = query.where("id", "<", before);
          if (lowest !== undefined) query = query.where("id", ">=", lowest);
          return query.orderBy("id", "desc").limit(limit + 1).execute();
        };
        if (!idRange || pairs.length === 0) return page(listing().where((eb) => matchesLogFilters(eb, filters, { idRange, pairsInRow: idRange })));
        // PostgreSQL: the logs holding the pairs in their row (the GIN index), and those stored
        // before that, through their `log_metadata` rows; each page newest first, merged.
        const conditions = { ...filters, metadata: undefined };
        const filtered = () => listing().where((eb) => matchesLogFilters(eb, conditions, { idRange, pairsInRow: idRange }));
        const before0029 = async () =>
          (await holdsPairsBefore0029(db, filters, pairs[0]!, lowest)) ? page(joinMetadataPairs(filtered(), filters, pairs, lowest)) : [];
        const [withPairs, stored] = await Promise.all([page(filtered().where(inMetadataPairs(pairs))), before0029()]);
        return newestFirst([...withPairs, ...stored]);
      };
      // PostgreSQL, no lower time bound: the last day first, widening only while the page is short.
      const upperMs = idRange && filters.from === undefined ? listingUpperMs(filters, Date.now()) : Number.NaN;
      const rows = Number.isNaN(upperMs) ? await read() : await widening(upperMs, limit, read);
      return { records: rows.slice(0, limit).map(fromLogRow), hasMore: rows.length > limit };
    },

    async get(id, workspaceId) {
      const row = await db
        .selectFrom("logs")
        .selectAll()
        .where("id", "=", id)
        .where("workspace_id", "=", workspaceId)
        .executeTakeFirst();
      return row && fromLogRow(row);
    },

    async count(workspaceId) {
      let query = db.selectFrom("logs").select((eb) => eb.fn.countAll().as("count"));
      if (workspaceId !== undefined) query = query.where("workspace_id", "=", workspaceId);
      const row = await query.executeTakeFirstOrThrow();
      return Number(row.count);
    },
  };
}

type ListQuery = SelectQueryBuilder<Database, "logs", object>;

/**
 * The listing narrowed to logs stored before migration 0029 holding each metadata pair (newer ones
 * hold their pairs in their row), by a join per pair with the workspace's pairs of that key and
 * value (their ids bounded by the range, so only its day partitions are read).
 * `log_metadata_filter_idx (workspace_id, key, value, log_id)` is unique, so a join keeps one row
 * a log, and it returns a pair's logs newest first: PostgreSQL merges the day partitions' index
 * scans and stops at the page's end (5,000,000 logs, a rare value: 7 ms), where the same filter
 * as `EXISTS` was planned as every matching pair of 30 days gathered and sorted (0.5 s).
 */
function joinMetadataPairs<Q extends ListQuery>(listing: Q, filters: LogFilters, pairs: ReadonlyArray<[string, string]>, lowest: string | undefined): Q {
  const ids = idRangeOf(filters.from, filters.to);
  let query = listing as ListQuery;
  pairs.forEach(([key, value], i) => {
    const alias = `pair_${i}`;
    // The joined table adds no column to the listing's: its type stays the listing's.
    query = query.innerJoin(
      (eb) =>
        eb
          .selectFrom("log_metadata")
          .select("log_metadata.log_id")
          .where("log_metadata.workspace_id", "=", filters.workspaceId)
          .where("log_metadata.key", "=", key)
          .where("log_metadata.value", "=", value)
          .$if(ids.from !== undefined, (q) => q.where("log_metadata.log_id", ">=", ids.from!))
          .$if(lowest !== undefined, (q) => q.where("log_metadata.log_id", ">=", lowest!))
          .$if(ids.to !== undefined, (q) => q.where("log_metadata.log_id", "<", ids.to!))
          .as(alias),
      (join) => join.on(sql<boolean>`${sql.ref(`${alias}.log_id`)} = ${sql.ref("logs.id")}`),
    ) as unknown as ListQuery;
  });
  return query as Q;
}

/**
 * True when `log_metadata` holds the pair for a log of the workspace in the range: logs stored
 * before migration 0029 may then match. One probe of its unique B-tree; without such logs the
 * listing skips their join, which PostgreSQL takes long to plan for many pairs.
 */
async function holdsPairsBefore0029(db: Kysely<Database>, filters: LogFilters, [key, value]: [string, string], lowest: string | undefined): Promise<boolean> {
  const ids = idRangeOf(filters.from, filters.to);
  const found = await db
    .selectFrom("log_metadata")
    .select(sql<number>`1`.as("found"))
    .where("workspace_id", "=", filters.workspaceId)
    .where("key", "=", key)
    .where("value", "=", value)
    .$if(ids.from !== undefined, (q) => q.where("log_id", ">=", ids.from!))
    .$if(lowest !== undefined, (q) => q.where("log_id", ">=", lowest!))
    .$if(ids.to !== undefined, (q) => q.where("log_id", "<", ids.to!))
    .$if(filters.before !== undefined, (q) => q.where("log_id", "<", filters.before!))
    .limit(1)
    .executeTakeFirst();
  return found !== undefined;
}

/** Rows by id, newest first, each id once. */
function newestFirst<R extends { id: string }>(rows: R[]): R[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return [...byId.values()].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

/** `items` in `count` consecutive parts of nearly equal size. */
function partsOf<T>(items: readonly T[], count: number): T[][] {
  const size = Math.ceil(items.length / count);
  const parts: T[][] = [];
  for (let start = 0; start < items.length; start += size) parts.push(items.slice(start, start + size));
  return parts;
}

/**
 * Runs `work` on the items in order, at most `atOnce` at a time; after a failure starts no
 * more, lets those under way finish, and rejects with the first failure.
 */
async function eachAtOnce<T>(items: readonly T[], atOnce: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { reason: unknown } | undefined;
  const lane = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (reason) {
        failure ??= { reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, lane));
  if (failure) throw failure.reason;
}

function rollupKey(row: LogRollupsTable): string {
  return `${row.workspace_id}\u0000${row.dim}\u0000${row.value}\u0000${row.hour}\u0000${row.success}`;
}

function inKeyOrder(rows: LogRollupsTable[]): LogRollupsTable[] {
  return rows.map((row) => [rollupKey(row), row] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

function* chunked<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let start = 0; start < items.length; start += size) yield items.slice(start, start + size);
}
