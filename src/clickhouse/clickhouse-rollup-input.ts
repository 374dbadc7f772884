import { bucketOf } from "../analytics/latency-histogram.ts";
import type { LogRecord } from "../records/log-record.ts";
import { tsvString, tsvStringArray } from "./clickhouse-tsv.ts";

/**
 * A batch's rollups, summed here from the records the writer holds: one insert into the Null
 * table `log_rollup_input`, whose materialized views turn each row into aggregate states of its
 * rollup table, and one receipt row listing the records summed (`log_rollup_receipts`). The
 * server aggregates a few thousand summed rows per insert instead of every record four times.
 */

/** What a row of `log_rollup_input` is: the receipt, or a row of one rollup table. */
export const ROLLUP_TARGET = { receipt: 0, dims: 1, hourly: 2, users: 3, meta: 4 } as const;

/** The columns of `log_rollup_input`, in the order of the rows `rollupInputText` writes. */
export const ROLLUP_INPUT_COLUMNS: readonly string[] = [
  "target",
  "workspace_id",
  "period",
  "success",
  "k1",
  "k2",
  "k3",
  "status",
  "requests",
  "errors",
  "cost_usd",
  "cost_saved_usd",
  "cache_hits",
  "semantic_cache_hits",
  "prompt_tokens",
  "completion_tokens",
  "total_tokens",
  "latency_min",
  "latency_max",
  "ttft_min",
  "ttft_max",
  "ttft_count",
  "latency",
  "ttft",
  "ids",
  "ids_ms",
];

/** The sums of one rollup row. */
interface Sums {
  /** The key columns' text: target to status, tab-separated, with a trailing tab. */
  key: string;
  requests: number;
  errors: number;
  costUsd: number;
  costSavedUsd: number;
  cacheHits: number;
  semanticCacheHits: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  latencyMin: number;
  latencyMax: number;
  ttftMin: number;
  ttftMax: number;
  ttftCount: number;
  latency: number[];
  ttft: number[];
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** A key column: `''` for null, else `=` and the value (as the rollups store it, `encodeRollupValue`). */
const keyOf = (value: string | null | undefined): string => (value === null || value === undefined ? "" : `=${tsvString(value)}`);

/**
 * The rows of `log_rollup_input` for `records` (their rollups, then the receipt), as
 * TabSeparated text in one buffer; none for no records.
 */
export function rollupInputText(records: readonly LogRecord[]): Buffer[] {
  if (records.length === 0) return [];
  const rows = new Map<string, Sums>();
  const add = (key: string, record: LogRecord, latencyBucket: number, ttftBucket: number | null): void => {
    let sums = rows.get(key);
    if (!sums) {
      sums = {
        key,
        requests: 0,
        errors: 0,
        costUsd: 0,
        costSavedUsd: 0,
        cacheHits: 0,
        semanticCacheHits: 0,
        promptTokens: 0,
        completionTokens: 0,
        totalTokens: 0,
        latencyMin: Number.POSITIVE_INFINITY,
        latencyMax: Number.NEGATIVE_INFINITY,
        ttftMin: Number.POSITIVE_INFINITY,
        ttftMax: Number.NEGATIVE_INFINITY,
        ttftCount: 0,
        latency: [],
        ttft: [],
      };
      rows.set(key, sums);
    }
    sums.requests += 1;
    if (!record.success) sums.errors += 1;
    sums.costUsd += record.costUsd ?? 0;
    sums.costSavedUsd += record.costSavedUsd ?? 0;
    if (record.cacheStatus === "HIT") sums.cacheHits += 1;
    if (record.cacheStatus === "SEMANTIC_HIT") sums.semanticCacheHits += 1;
    sums.promptTokens += record.promptTokens;
    sums.completionTokens += record.completionTokens;
    sums.totalTokens += record.totalTokens;
    sums.latencyMin = Math.min(sums.latencyMin, record.latencyMs);
    sums.latencyMax = Math.max(sums.latencyMax, record.latencyMs);
    count(sums.latency, latencyBucket);
    if (ttftBucket !== null) {
      const ttft = record.timeToFirstTokenMs!;
      sums.ttftMin = Math.min(sums.ttftMin, ttft);
      sums.ttftMax = Math.max(sums.ttftMax, ttft);
      sums.ttftCount += 1;
      count(sums.ttft, ttftBucket);
    }
  };
  const ids: string[] = [];
  const idsMs: number[] = [];
  for (const record of records) {
    const ms = Date.parse(record.createdAt);
    ids.push(record.id);
    idsMs.push(ms);
    const latencyBucket = bucketOf(record.latencyMs);
    const ttftBucket = record.timeToFirstTokenMs === null ? null : bucketOf(record.timeToFirstTokenMs);
    const head = `\t${tsvString(record.workspaceId)}\t`;
    const hour = `${Math.floor(ms / HOUR_MS) * 3600}\t${record.success ? 1 : 0}\t`;
    const model = keyOf(record.model);
    const provider = keyOf(record.provider);
    const virtualKey = keyOf(record.virtualKeyId);
    const status = String(record.status);
    const dims = `${ROLLUP_TARGET.dims}${head}${hour}`;
    add(`${dims}all\t\t\t0\t`, record, latencyBucket, ttftBucket);
    add(`${dims}model\t${model}\t\t0\t`, record, latencyBucket, ttftBucket);
    add(`${dims}provider\t${provider}\t\t0\t`, record, latencyBucket, ttftBucket);
    add(`${dims}virtual_key_id\t${virtualKey}\t\t0\t`, record, latencyBucket, ttftBucket);
    add(`${dims}status\t=${status}\t\t0\t`, record, latencyBucket, ttftBucket);
    add(`${ROLLUP_TARGET.hourly}${head}${hour}${model}\t${provider}\t${virtualKey}\t${status}\t`, record, latencyBucket, ttftBucket);
    add(`${ROLLUP_TARGET.users}${head}${Math.floor(ms / DAY_MS)}\t${record.success ? 1 : 0}\t${keyOf(record.user)}\t\t\t0\t`, record, latencyBucket, ttftBucket);
    for (const key in record.metadata) {
      add(`${ROLLUP_TARGET.meta}${head}${hour}${tsvString(key)}\t${tsvString(record.metadata[key]!)}\t\t0\t`, record, latencyBucket, ttftBucket);
    }
  }
  let text = "";
  for (const sums of rows.values()) text += sumsLine(sums);
  // The receipt: every record summed above, with its time (its partition, and the lookup's bound).
  text += `${ROLLUP_TARGET.receipt}\t\t0\t0\t\t\t\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t[]\t[]\t${tsvStringArray(ids)}\t[${idsMs.join(",")}]\n`;
  return [Buffer.from(text)];
}

/** Adds one to a histogram's bucket, growing the array up to it (`sumForEach` adds arrays of any length). */
function count(histogram: number[], bucket: number): void {
  while (histogram.length <= bucket) histogram.push(0);
  histogram[bucket]! += 1;
}

function sumsLine(sums: Sums): string {
  const ttft = sums.ttftCount > 0;
  return `${sums.key}${sums.requests}\t${sums.errors}\t${sums.costUsd}\t${sums.costSavedUsd}\t${sums.cacheHits}\t${sums.semanticCacheHits}\t${sums.promptTokens}\t${sums.completionTokens}\t${sums.totalTokens}\t${sums.latencyMin}\t${sums.latencyMax}\t${ttft ? sums.ttftMin : 0}\t${ttft ? sums.ttftMax : 0}\t${sums.ttftCount}\t[${sums.latency.join(",")}]\t[${sums.ttft.join(",")}]\t[]\t[]\n`;
}
