import { sql, type RawBuilder } from "kysely";
import type { Store } from "../../src/store/open-store.ts";
import { ANSWER, BODY, FEATURE_COUNT, MODEL_WEIGHTS, MODELS, REGIONS, TEAMS, USER_COUNT, WORKSPACE_COUNT, WORKSPACES } from "./fill.ts";

/**
 * PostgreSQL: generates the bench's logs in the server (`INSERT … SELECT … FROM generate_series`),
 * with the shape and cardinalities of `generate` in `fill.ts` (100 workspaces, the first with half
 * the rows; 10,000 skewed end users; 30 Zipf-weighted models; 6% failures; log-normal latencies;
 * `env`, `team`, `region` on every record, `feature` on one in three, `session` on one in ten),
 * drawn by PostgreSQL's `random()` instead of the script's generator. Nothing crosses the wire
 * but the statement, so the fill costs only what the server spends storing rows and indexes.
 * Rows `first .. first + count - 1` of `total`, spread evenly over `[startMs, endMs)`, in one
 * statement (the metadata pairs in the log rows, as the writer stores them).
 */
export async function serverFill(store: Store, first: number, count: number, total: number, startMs: number, endMs: number): Promise<void> {
  await serverFillStatement(first, count, total, startMs, endMs).execute(store.db);
}

/** `serverFill`'s statement. */
export function serverFillStatement(first: number, count: number, total: number, startMs: number, endMs: number): RawBuilder<unknown> {
  const step = (endMs - startMs) / total;
  const models = sql.join(MODELS.map(([provider, model, input, output], i) => sql`(${sql.lit(i)}, ${sql.lit(provider)}, ${sql.lit(model)}, ${sql.lit(input)}::float8, ${sql.lit(output)}::float8)`));
  const picks = `{${modelPicks(1000).join(",")}}`;
  const texts = (values: readonly string[]) => sql.lit(`{${values.join(",")}}`);
  return sql`
    WITH base AS MATERIALIZED (
      SELECT i,
        (${sql.lit(startMs)}::bigint + floor(i * ${sql.lit(step)}::float8 + random() * ${sql.lit(step)}::float8))::bigint AS ms,
        random() AS r_ws, random() AS r_ws2, random() AS r_ws3,
        (${sql.lit(picks)}::int[])[1 + floor(random() * 1000)::int] AS mi,
        random() AS r_status, random() < 0.4 AS stream,
        floor(random() * 3000)::int AS pt_r, floor(random() * 1000)::int AS ct_r,
        random() AS r_user, random() AS r_u1, random() AS r_u2,
        random() AS r_vk, floor(random() * 12)::int AS vk_n, floor(random() * 4)::int AS key_n,
        floor(random() * 5)::int AS env_n, floor(random() * random() * ${sql.lit(TEAMS.length)})::int AS team_n,
        floor(random() * ${sql.lit(REGIONS.length)})::int AS region_n,
        random() < 1.0 / 3 AS has_feature, floor(random() * random() * ${sql.lit(FEATURE_COUNT)})::int AS feature_n,
        random() < 0.1 AS has_session, floor(random() * 1e9)::bigint AS session_n,
        sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) AS z1,
        sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) AS z2,
        md5(random()::text || i::text) AS h, md5(random()::text || i::text) AS h2
      FROM generate_series(${sql.lit(first)}::bigint, ${sql.lit(first + count - 1)}::bigint) AS i
    ), g AS MATERIALIZED (
      SELECT b.*, m.provider, m.model, m.input, m.output,
        lpad(to_hex(ms), 12, '0') AS t,
        to_char(timestamp '1970-01-01' + ms * interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
        CASE WHEN r_ws < 0.5 THEN ${sql.lit(WORKSPACES[0]!)}
          ELSE 'ws-bench-' || lpad((1 + floor(${sql.lit(WORKSPACE_COUNT - 1)} * r_ws2 * r_ws3))::int::text, 3, '0') END AS workspace_id,
        CASE WHEN r_status < 0.94 THEN 200 WHEN r_status < 0.97 THEN 429 WHEN r_status < 0.99 THEN 500 ELSE 400 END AS status,
        CASE WHEN r_user < 0.1 THEN NULL ELSE 'user-' || floor(${sql.lit(USER_COUNT)} * r_u1 * r_u2)::int END AS end_user,
        CASE WHEN r_vk < 0.2 THEN NULL ELSE 'vk-' || vk_n END AS virtual_key_id,
        (${texts(["prod", "prod", "prod", "staging", "dev"])}::text[])[env_n + 1] AS env,
        'team-' || team_n AS team,
        (${texts(REGIONS)}::text[])[region_n + 1] AS region,
        CASE WHEN has_feature THEN 'feature-' || feature_n END AS feature,
        CASE WHEN has_session THEN 's-' || session_n END AS session
      FROM base b JOIN (VALUES ${models}) AS m(mi, provider, model, input, output) USING (mi)
    ), r AS MATERIALIZED (
      SELECT g.*,
        substr(t, 1, 8) || '-' || substr(t, 9, 4) || '-7' || substr(h, 1, 3) || '-8' || substr(h, 4, 3) || '-' || substr(h, 7, 12) AS id,
        substr(t, 1, 8) || '-' || substr(t, 9, 4) || '-7' || substr(h2, 1, 3) || '-8' || substr(h2, 4, 3) || '-' || substr(h2, 7, 12) AS trace_id,
        status = 200 AS ok,
        CASE WHEN status = 200 THEN round((800 * exp(0.8 * z1))::numeric, 2) ELSE round((120 * exp(z1))::numeric, 2) END::float8 AS latency_ms,
        CASE WHEN status = 200 THEN 50 + pt_r ELSE 0 END AS prompt_tokens,
        CASE WHEN status = 200 THEN 10 + ct_r ELSE 0 END AS completion_tokens
      FROM g
    )
    INSERT INTO logs (id, created_at, organisation_id, workspace_id, api_key_id, virtual_key_id, provider, model, route, method, path,
        status, success, stream, latency_ms, time_to_first_token_ms, prompt_tokens, completion_tokens, total_tokens, cached_tokens,
        reasoning_tokens, cost_usd, end_user, metadata, trace_id, request_body, response_body, error_code, error_message,
        request_body_truncated, request_body_bytes, response_body_truncated, response_body_bytes, attempts, tool_run, metadata_pairs)
      SELECT id, created_at, 'org-bench', workspace_id, 'key-' || key_n, virtual_key_id, provider, model, 'createChatCompletion', 'POST',
        '/v1/chat/completions', status, ok::int, stream::int, latency_ms,
        CASE WHEN stream AND ok THEN least(latency_ms, round((300 * exp(0.6 * z2))::numeric, 2)::float8) END,
        prompt_tokens, completion_tokens, prompt_tokens + completion_tokens, 0, 0,
        CASE WHEN ok THEN (prompt_tokens * input + completion_tokens * output) / 1e6 END,
        end_user, json_strip_nulls(json_build_object('env', env, 'team', team, 'region', region, 'feature', feature, 'session', session))::text,
        trace_id, ${BODY}, CASE WHEN ok THEN ${ANSWER} END,
        CASE WHEN ok THEN NULL ELSE 'upstream_error' END, CASE WHEN ok THEN NULL ELSE 'upstream answered an error' END,
        0, ${sql.lit(BODY.length)}, 0, CASE WHEN ok THEN ${sql.lit(ANSWER.length)} END, '[]', '[]',
        -- The pairs as the writer forms them (metadataPair): the key as a JSON string, then the value.
        array_remove(ARRAY['"env"' || env, '"team"' || team, '"region"' || region, '"feature"' || feature, '"session"' || session], NULL)
      FROM r`;
}

/** `size` model indexes in proportion to `MODEL_WEIGHTS`, for a uniform pick among them. */
function modelPicks(size: number): number[] {
  const total = MODEL_WEIGHTS.reduce((a, b) => a + b, 0);
  const picks: number[] = [];
  MODEL_WEIGHTS.forEach((weight, i) => {
    const until = Math.round((size * MODEL_WEIGHTS.slice(0, i + 1).reduce((a, b) => a + b, 0)) / total);
    while (picks.length < until) picks.push(i);
  });
  return picks;
}
