/**
 * Fills the ClickHouse `logs` table in the server (`INSERT … SELECT … FROM numbers(…)`), for
 * benchmarks at 100M rows and more: the records `fill.ts` generates, in distribution (100
 * workspaces, the first with half the records; 10,000 end users, skewed; 30 models of six
 * providers, skewed; 12 virtual keys; 6% failures; log-normal latencies; `env`, `team`,
 * `region` on every record, `feature` on a third, `session` on a tenth), drawn from hashes of
 * the row number instead of a generator, so a server writes a million rows a few seconds.
 * The rows go into `logs` through its materialized views, so the rollups grow with them.
 */
import { parseClickHouseUrl } from "../../src/clickhouse/clickhouse-url.ts";

const COLUMNS = `id, organisation_id, workspace_id, api_key_id, virtual_key_id, provider, model, route, method, path, status, success, stream, latency_ms, time_to_first_token_ms, prompt_tokens, completion_tokens, total_tokens, cached_tokens, reasoning_tokens, cost_usd, cost_saved_usd, cost_note, cache_status, cache_similarity, cache_source_log_id, cache_note, end_user, trace_id, span_id, parent_span_id, span_name, request_body, request_body_truncated, request_body_bytes, response_body, response_body_truncated, response_body_bytes, error_code, error_message, prompt_id, prompt_version, config_id, config_version, guardrail_results, attempts, tool_run, created_ms, \`meta.key\`, \`meta.value\`, latency_bucket, ttft_bucket`;

/** Rows `first .. first + count - 1` of `base .. base + total - 1`, spread evenly over `[startMs, endMs)`, into `table`. */
function fillStatement(table: string, base: number, first: number, count: number, total: number, startMs: number, endMs: number): string {
  const spanMs = endMs - startMs;
  return `INSERT INTO ${table} (${COLUMNS})
SELECT
  concat(substring(hx, 1, 8), '-', substring(hx, 9, 4), '-7', substring(r1, 1, 3), '-', ['8','9','a','b'][(h1 % 4) + 1], substring(r1, 4, 3), '-', substring(r2, 1, 12)) AS id,
  'org-bench' AS organisation_id,
  if(h1 % 2 = 0, '00000000-0000-4000-8000-000000000002', concat('ws-bench-', if(wsn < 10, concat('00', toString(wsn)), if(wsn < 100, concat('0', toString(wsn)), toString(wsn))))) AS workspace_id,
  concat('key-', toString(h3 % 4)) AS api_key_id,
  if(u4 < 0.2, NULL, concat('vk-', toString(h4 % 12))) AS virtual_key_id,
  ['openai','anthropic','groq','mistral','google','bedrock'][intDiv(midx, 5) + 1] AS provider,
  concat(['openai','anthropic','groq','mistral','google','bedrock'][intDiv(midx, 5) + 1], '-model-', toString(midx % 5)) AS model,
  'createChatCompletion', 'POST', '/v1/chat/completions',
  st AS status, st = 200 AS success, u6 < 0.4 AS stream,
  lat AS latency_ms,
  if(u6 < 0.4 AND st = 200, least(lat, round(300 * exp(0.6 * nrm2), 2)), NULL) AS time_to_first_token_ms,
  pt, ct, pt + ct, 0, 0,
  if(st = 200, (pt * 2.5 + ct * 10) / (midx + 1) / 1e6, NULL) AS cost_usd,
  NULL, NULL, NULL, NULL, NULL, NULL,
  if(u7 < 0.1, NULL, concat('user-', toString(toUInt32(floor(10000 * u8 * u9))))) AS end_user,
  id AS trace_id, NULL, NULL, NULL,
  '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Summarise the attached ticket in two lines, please."}]}', 0, 110,
  '{"id":"chatcmpl-bench","choices":[{"index":0,"message":{"role":"assistant","content":"Customer cannot log in after reset; escalated to auth team."}}]}', 0, 140,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, '[]', 'null',
  ms AS created_ms,
  arrayConcat(['env', 'team', 'region'], if(hasF, ['feature'], emptyArrayString()), if(hasS, ['session'], emptyArrayString())) AS mk,
  arrayConcat([['prod','prod','prod','staging','dev'][h5 % 5 + 1], concat('team-', toString(toUInt32(floor(8 * u10 * u11)))), ['eu-west','eu-central','us-east','us-west','ap-south'][h6 % 5 + 1]],
    if(hasF, [concat('feature-', toString(toUInt32(floor(40 * u12 * u13))))], emptyArrayString()), if(hasS, [concat('s-', toString(h7 % 1000000000))], emptyArrayString())) AS mv,
  if(lat < 1, 0, toUInt8(least(63, floor(3 * log2(lat)) + 1))) AS latency_bucket,
  if(isNull(time_to_first_token_ms), NULL, if(time_to_first_token_ms < 1, 0, toUInt8(least(63, floor(3 * log2(assumeNotNull(time_to_first_token_ms))) + 1)))) AS ttft_bucket
FROM (
  SELECT number AS n, toInt64(${startMs} + intDiv((n - ${base}) * ${spanMs}, ${total})) AS ms, lower(hex(toUInt64(ms))) AS hx,
    cityHash64(n, 1) AS h1, cityHash64(n, 3) AS h3, cityHash64(n, 4) AS h4, cityHash64(n, 5) AS h5, cityHash64(n, 6) AS h6, cityHash64(n, 7) AS h7,
    lower(hex(cityHash64(n, 11))) AS r1, lower(hex(cityHash64(n, 12))) AS r2,
    (cityHash64(n, 2) % 1000003) / 1000003 AS u2, 1 + toUInt32(floor(99 * u2 * u2)) AS wsn, (cityHash64(n, 14) % 1000003) / 1000003 AS u4, (cityHash64(n, 15) % 1000003) / 1000003 AS u5,
    (cityHash64(n, 16) % 1000003) / 1000003 AS u6, (cityHash64(n, 17) % 1000003) / 1000003 AS u7, (cityHash64(n, 18) % 1000003) / 1000003 AS u8,
    (cityHash64(n, 19) % 1000003) / 1000003 AS u9, (cityHash64(n, 20) % 1000003) / 1000003 AS u10, (cityHash64(n, 21) % 1000003) / 1000003 AS u11,
    (cityHash64(n, 22) % 1000003) / 1000003 AS u12, (cityHash64(n, 23) % 1000003) / 1000003 AS u13,
    (cityHash64(n, 24) % 1000003 + 1) / 1000004 AS ua, (cityHash64(n, 25) % 1000003) / 1000003 AS ub,
    (cityHash64(n, 26) % 1000003 + 1) / 1000004 AS uc, (cityHash64(n, 27) % 1000003) / 1000003 AS ud,
    sqrt(-2 * log(ua)) * cos(2 * pi() * ub) AS nrm1, sqrt(-2 * log(uc)) * cos(2 * pi() * ud) AS nrm2,
    toUInt32(least(29, floor(exp(((cityHash64(n, 8) % 1000003) / 1000003) * log(31))) - 1)) AS midx,
    multiIf(u5 < 0.94, 200, u5 < 0.97, 429, u5 < 0.99, 500, 400) AS st,
    if(st = 200, round(800 * exp(0.8 * nrm1), 2), round(120 * exp(nrm1), 2)) AS lat,
    if(st = 200, 50 + toInt64(cityHash64(n, 9) % 3000), 0) AS pt, if(st = 200, 10 + toInt64(cityHash64(n, 10) % 1000), 0) AS ct,
    cityHash64(n, 28) % 3 = 0 AS hasF, cityHash64(n, 29) % 10 = 0 AS hasS
  FROM numbers(${first}, ${count})
)`;
}

/** Rows per insert: one ends within the HTTP client's timeouts at any load (the views run in it). */
const ROWS_PER_INSERT = 250_000;
/** Inserts at once: ClickHouse 18.16 runs an `INSERT … SELECT` and its views on one core. */
const INSERTS_IN_FLIGHT = 2;

/**
 * Adds `count` rows to `logs` of the database `url` names (row numbers from `first`: ids never
 * repeat across calls with disjoint ranges) spread over `[startMs, endMs)`. Sent over plain HTTP:
 * the store's client gives up on a statement after a minute.
 */
export async function fillLogsInServer(url: string, first: number, count: number, startMs: number, endMs: number): Promise<void> {
  const target = parseClickHouseUrl(url);
  const headers = { "X-ClickHouse-User": target.username, "X-ClickHouse-Key": target.password };
  const starts: number[] = [];
  for (let from = first; from < first + count; from += ROWS_PER_INSERT) starts.push(from);
  const insertNext = async (): Promise<void> => {
    for (let from = starts.shift(); from !== undefined; from = starts.shift()) {
      const statement = fillStatement("logs", first, from, Math.min(ROWS_PER_INSERT, first + count - from), count, startMs, endMs);
      const response = await fetch(`${target.endpoint}/?database=${encodeURIComponent(target.database)}`, { method: "POST", body: statement, headers });
      if (!response.ok) throw new Error(`fill failed: ${response.status} ${await response.text()}`);
    }
  };
  await Promise.all(Array.from({ length: INSERTS_IN_FLIGHT }, insertNext));
}
