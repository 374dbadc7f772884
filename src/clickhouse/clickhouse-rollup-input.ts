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

function emptySums(key: string): Sums {
  return {
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
}

function sumsAt(rows: Map<string, Sums>, key: string): Sums {
  let sums = rows.get(key);
  if (!sums) rows.set(key, (sums = emptySums(key)));
  return sums;
}

function addRecord(sums: Sums, record: LogRecord, latencyBucket: number, ttftBucket: number | null): void {
  sums.requests += 1;
  if (!record.success) sums.errors += 1;
  sums.costUsd += record.costUsd ?? 0;
  sums.costSavedUsd += record.costSavedUsd ?? 0;
  if (record.cacheStatus === "HIT") sums.cacheHits += 1;
  else if (record.cacheStatus === "SEMANTIC_HIT") sums.semanticCacheHits += 1;
  sums.promptTokens += record.promptTokens;
  sums.completionTokens += record.completionTokens;
  sums.totalTokens += record.totalTokens;
  if (record.latencyMs < sums.latencyMin) sums.latencyMin = record.latencyMs;
  if (record.latencyMs > sums.latencyMax) sums.latencyMax = record.latencyMs;
  count(sums.latency, latencyBucket, 1);
  if (ttftBucket !== null) {
    const ttft = record.timeToFirstTokenMs!;
    if (ttft < sums.ttftMin) sums.ttftMin = ttft;
    if (ttft > sums.ttftMax) sums.ttftMax = ttft;
    sums.ttftCount += 1;
    count(sums.ttft, ttftBucket, 1);
  }
}

function addSums(into: Sums, from: Sums): void {
  into.requests += from.requests;
  into.errors += from.errors;
  into.costUsd += from.costUsd;
  into.costSavedUsd += from.costSavedUsd;
  into.cacheHits += from.cacheHits;
  into.semanticCacheHits += from.semanticCacheHits;
  into.promptTokens += from.promptTokens;
  into.completionTokens += from.completionTokens;
  into.totalTokens += from.totalTokens;
  into.latencyMin = Math.min(into.latencyMin, from.latencyMin);
  into.latencyMax = Math.max(into.latencyMax, from.latencyMax);
  into.ttftMin = Math.min(into.ttftMin, from.ttftMin);
  into.ttftMax = Math.max(into.ttftMax, from.ttftMax);
  into.ttftCount += from.ttftCount;
  from.latency.forEach((n, bucket) => count(into.latency, bucket, n));
  from.ttft.forEach((n, bucket) => count(into.ttft, bucket, n));
}

/**
 * The rows of `log_rollup_input` for `records` (their rollups, then the receipt), as
 * TabSeparated text in one buffer; none for no records. Each record is added to three rows (its
 * hour's combination of model, provider, virtual key and status; its day's end user) and one per
 * metadata pair; the per-dimension rows are summed from the combinations, which are far fewer.
 */
export function rollupInputText(records: readonly LogRecord[]): Buffer[] {
  if (records.length === 0) return [];
  const hourly = new Map<string, Sums>();
  const others = new Map<string, Sums>();
  /** Per combination row: its workspace-hour-success prefix and its dimension values. */
  const dimsOf = new Map<Sums, [prefix: string, model: string, provider: string, virtualKey: string, status: string]>();
  const ids: string[] = [];
  const idsMs: number[] = [];
  for (const record of records) {
    const ms = Date.parse(record.createdAt);
    ids.push(record.id);
    idsMs.push(ms);
    const latencyBucket = bucketOf(record.latencyMs);
    const ttftBucket = record.timeToFirstTokenMs === null ? null : bucketOf(record.timeToFirstTokenMs);
    const head = `\t${tsvString(record.workspaceId)}\t`;
    const hour = `${head}${Math.floor(ms / HOUR_MS) * 3600}\t${record.success ? 1 : 0}\t`;
    const model = keyOf(record.model);
    const provider = keyOf(record.provider);
    const virtualKey = keyOf(record.virtualKeyId);
    const status = String(record.status);
    const key = `${ROLLUP_TARGET.hourly}${hour}${model}\t${provider}\t${virtualKey}\t${status}\t`;
    let combination = hourly.get(key);
    if (!combination) {
      hourly.set(key, (combination = emptySums(key)));
      dimsOf.set(combination, [hour, model, provider, virtualKey, status]);
    }
    addRecord(combination, record, latencyBucket, ttftBucket);
    addRecord(sumsAt(others, `${ROLLUP_TARGET.users}${head}${Math.floor(ms / DAY_MS)}\t${record.success ? 1 : 0}\t${keyOf(record.user)}\t\t\t0\t`), record, latencyBucket, ttftBucket);
    for (const name in record.metadata) {
      addRecord(sumsAt(others, `${ROLLUP_TARGET.meta}${hour}${tsvString(name)}\t${tsvString(record.metadata[name]!)}\t\t0\t`), record, latencyBucket, ttftBucket);
    }
  }
  for (const [combination, [hour, model, provider, virtualKey, status]] of dimsOf) {
    const dims = `${ROLLUP_TARGET.dims}${hour}`;
    addSums(sumsAt(others, `${dims}all\t\t\t0\t`), combination);
    addSums(sumsAt(others, `${dims}model\t${model}\t\t0\t`), combination);
    addSums(sumsAt(others, `${dims}provider\t${provider}\t\t0\t`), combination);
    addSums(sumsAt(others, `${dims}virtual_key_id\t${virtualKey}\t\t0\t`), combination);
    addSums(sumsAt(others, `${dims}status\t=${status}\t\t0\t`), combination);
  }
  const lines: string[] = [];
  for (const sums of hourly.values()) lines.push(sumsLine(sums));
  for (const sums of others.values()) lines.push(sumsLine(sums));
  // The receipt: every record summed above, with its time (its partition, and the lookup's bound).
  lines.push(`${ROLLUP_TARGET.receipt}\t\t0\t0\t\t\t\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t[]\t[]\t${tsvStringArray(ids)}\t[${idsMs.join(",")}]\n`);
  return [Buffer.from(lines.join(""))];
}

/** Adds `n` to a histogram's bucket, growing the array up to it (`sumForEach` adds arrays of any length). */
function count(histogram: number[], bucket: number, n: number): void {
  while (histogram.length <= bucket) histogram.push(0);
  histogram[bucket]! += n;
}

function sumsLine(sums: Sums): string {
  const ttft = sums.ttftCount > 0;
  return `${sums.key}${sums.requests}\t${sums.errors}\t${sums.costUsd}\t${sums.costSavedUsd}\t${sums.cacheHits}\t${sums.semanticCacheHits}\t${sums.promptTokens}\t${sums.completionTokens}\t${sums.totalTokens}\t${sums.latencyMin}\t${sums.latencyMax}\t${ttft ? sums.ttftMin : 0}\t${ttft ? sums.ttftMax : 0}\t${sums.ttftCount}\t[${sums.latency.join(",")}]\t[${sums.ttft.join(",")}]\t[]\t[]\n`;
}
