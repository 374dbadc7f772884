import type { RetentionStep } from "../store/log-retention.ts";
import type { ClickHouseConnection } from "./clickhouse-connection.ts";
import { str } from "./clickhouse-sql.ts";

const DAY_MS = 86_400_000;

/**
 * The partitions retention drops, per table: the partition key's value is a number of UTC days
 * (a block of them for the rollups), so a partition is expired when its last day ended by the
 * cutoff's day. Whole partitions go at once (a metadata operation, no rewrite of data): a log is
 * removed within a day after it expires, and rollups within their block's length.
 */
const TABLES = [
  { table: "logs", lastDay: (partition: number) => partition, counts: "logs" },
  { table: "log_rollups_hourly_dims", lastDay: (partition: number) => partition, counts: "rollups" },
  { table: "log_rollups_hourly", lastDay: (partition: number) => partition, counts: "rollups" },
  { table: "log_rollups_hourly_meta", lastDay: (partition: number) => partition, counts: "rollups" },
  { table: "log_rollups_hourly_keysets", lastDay: (partition: number) => partition, counts: "rollups" },
  { table: "log_rollups_user_days", lastDay: (partition: number) => partition * 30 + 29, counts: "rollups" },
  { table: "log_user_hours", lastDay: (partition: number) => partition, counts: "rollups" },
  { table: "log_rollups_user_hours", lastDay: (partition: number) => partition, counts: "rollups" },
] as const;

/**
 * Drops the oldest expired partition of each log table (logs created before `cutoffMs`, with the
 * rollups of the periods wholly before it). Call again while it removed anything.
 */
export async function dropExpiredPartitionsStep(connection: ClickHouseConnection, cutoffMs: number): Promise<RetentionStep> {
  const cutoffDay = Math.floor(cutoffMs / DAY_MS);
  const step: RetentionStep = { logs: 0, rollups: 0, days: 0 };
  for (const { table, lastDay, counts } of TABLES) {
    const parts = await connection.rows<{ partition: string; rows: string }>(
      `SELECT partition, sum(rows) AS rows FROM system.parts
       WHERE database = currentDatabase() AND table = ${str(table)} AND active GROUP BY partition`,
    );
    const expired = parts
      .map((part) => ({ partition: Number(part.partition), rows: Number(part.rows) }))
      .filter((part) => Number.isInteger(part.partition) && lastDay(part.partition) < cutoffDay)
      .sort((a, b) => a.partition - b.partition)[0];
    if (!expired) continue;
    await connection.command(`ALTER TABLE ${table} DROP PARTITION ${expired.partition}`);
    step[counts] += expired.rows;
    if (table === "logs") step.days += 1;
  }
  return step;
}
