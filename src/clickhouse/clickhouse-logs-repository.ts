import type { LogRecord } from "../records/log-record.ts";
import type { LogsRepository } from "../store/logs-repository.ts";
import { LISTED_COLUMNS, RECORD_COLUMNS } from "./clickhouse-columns.ts";
import type { ClickHouseConnection } from "./clickhouse-connection.ts";
import { logFiltersSql, type ConfigIdResolver } from "./clickhouse-log-filters.ts";
import { fromClickHouseRow, toClickHouseRow } from "./clickhouse-log-rows.ts";
import { idBound, idMs } from "./log-ids.ts";
import { str, strList } from "./clickhouse-sql.ts";

/** Ids per `IN` list when looking for records already stored. */
const IDS_PER_LOOKUP = 5_000;

/**
 * How far back each step of a listing looks from its anchor (the cursor's time, or now), before
 * the last step, which looks at everything older. Ids are UUIDv7, so each step is a range of the
 * primary key (workspace_id, id): a listing of recent records reads recent granules only.
 */
const LISTING_WINDOWS_MS = [3_600_000, 86_400_000, 7 * 86_400_000, 31 * 86_400_000, 366 * 86_400_000];

/**
 * The logs repository over ClickHouse's `logs`. Exactly once: a batch stores only the records
 * whose id is not stored yet (the spool replays a batch that may have landed, whole or in part),
 * so neither the rows nor the rollups (materialized views fed by the insert) count a record twice.
 */
export function createClickHouseLogsRepository(connection: ClickHouseConnection, resolveConfig: ConfigIdResolver): LogsRepository {
  const columnList = (columns: readonly string[]) => columns.map((column) => (column.includes(".") ? `\`${column}\`` : column)).join(", ");
  return {
    async insertBatch(records) {
      const unique = new Map<string, LogRecord>();
      for (const record of records) if (!unique.has(record.id)) unique.set(record.id, record);
      const stored = await storedIds(connection, [...unique.values()]);
      const fresh = [...unique.values()].filter((record) => !stored.has(record.id));
      if (fresh.length > 0) await connection.insert("logs", fresh.map(toClickHouseRow));
    },

    async ping() {
      await connection.rows("SELECT 1");
    },

    async list(filters, options = {}) {
      const limit = Math.max(1, Math.trunc(filters.limit));
      const where = await logFiltersSql(filters, resolveConfig);
      const anchor = filters.before !== undefined ? idMs(filters.before) ?? Date.now() : Date.now();
      const cursor = filters.before !== undefined ? ` AND id < ${str(filters.before)}` : "";
      // First the page's ids, reading only the filtered columns; then its rows, by primary key.
      const ids: string[] = [];
      let upper: string | null = null;
      for (const windowMs of [...LISTING_WINDOWS_MS, null]) {
        const lower = windowMs === null ? null : idBound(anchor - windowMs);
        const range = `${upper === null ? "" : ` AND id < ${str(upper)}`}${lower === null ? "" : ` AND id >= ${str(lower)}`}`;
        const wanted = limit + 1 - ids.length;
        const found = await connection.rows<{ id: string }>(`SELECT DISTINCT id FROM logs WHERE ${where}${cursor}${range} ORDER BY id DESC LIMIT ${wanted}`);
        ids.push(...found.map((row) => row.id));
        if (ids.length > limit || lower === null) break;
        upper = lower;
      }
      const page = ids.slice(0, limit);
      if (page.length === 0) return { records: [], hasMore: false };
      const columns = columnList(options.bodies ? RECORD_COLUMNS : LISTED_COLUMNS);
      const rows = await connection.rows(
        `SELECT ${columns} FROM logs WHERE workspace_id = ${str(filters.workspaceId)} AND id >= ${str(page[page.length - 1]!)} AND id <= ${str(page[0]!)}
         AND id IN ${strList(page)} ORDER BY id DESC LIMIT 1 BY id`,
      );
      return { records: rows.map(fromClickHouseRow), hasMore: ids.length > limit };
    },

    async get(id, workspaceId) {
      const [row] = await connection.rows(
        `SELECT ${columnList(RECORD_COLUMNS)} FROM logs WHERE workspace_id = ${str(workspaceId)} AND id = ${str(id)} LIMIT 1`,
      );
      return row && fromClickHouseRow(row);
    },

    async count(workspaceId) {
      const where = workspaceId === undefined ? "" : ` WHERE workspace_id = ${str(workspaceId)}`;
      const [row] = await connection.rows<{ n: string }>(`SELECT count() AS n FROM logs${where}`);
      return Number(row?.n ?? 0);
    },
  };
}

/** The ids among `records` already stored, looked up per workspace by primary key. */
async function storedIds(connection: ClickHouseConnection, records: readonly LogRecord[]): Promise<Set<string>> {
  const byWorkspace = new Map<string, string[]>();
  for (const record of records) {
    const ids = byWorkspace.get(record.workspaceId) ?? [];
    ids.push(record.id);
    byWorkspace.set(record.workspaceId, ids);
  }
  const stored = new Set<string>();
  for (const [workspaceId, ids] of byWorkspace) {
    for (let start = 0; start < ids.length; start += IDS_PER_LOOKUP) {
      const chunk = ids.slice(start, start + IDS_PER_LOOKUP).sort();
      // The id range narrows the primary key to the batch's granules before the IN list is checked.
      const rows = await connection.rows<{ id: string }>(
        `SELECT id FROM logs WHERE workspace_id = ${str(workspaceId)} AND id >= ${str(chunk[0]!)} AND id <= ${str(chunk[chunk.length - 1]!)} AND id IN ${strList(chunk)}`,
      );
      for (const { id } of rows) stored.add(id);
    }
  }
  return stored;
}
