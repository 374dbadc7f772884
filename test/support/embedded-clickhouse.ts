import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ClickHouseTransport } from "../../src/clickhouse/clickhouse-url.ts";
import type { ClickHouseEngine } from "./clickhouse-engines.ts";

/**
 * The current ClickHouse engine in this process, through chdb (`chdb/connection`, the official
 * client's in-process transport): the store's own client and SQL run on it, only HTTP is left
 * out. libchdb holds one data directory per process, so a suite's databases share one session,
 * and every statement names its database first (`USE`), as the HTTP interface's `database` does.
 */
export async function startEmbeddedClickHouse(): Promise<ClickHouseEngine> {
  const { createChdbConnection } = await import("chdb/connection");
  const { drainPending } = await import("chdb");
  const dir = mkdtempSync(join(tmpdir(), "gateway-chdb-"));
  const session = createChdbConnection({ path: dir }) as unknown as ClickHouseTransport;
  return {
    async target(database) {
      await session.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
      return { endpoint: "http://chdb.in-process", username: "default", password: "", database, transport: () => inDatabase(session, database) };
    },
    async remove() {
      await session.close();
      await drainPending();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The shared session, every statement run in `database` and 64-bit integers quoted in JSON, as a
 * server answers over HTTP (chdb's default is bare numbers); closing it leaves the session open.
 */
function inDatabase(session: ClickHouseTransport, database: string): ClickHouseTransport {
  const scoped = <P extends { query: string; clickhouse_settings?: object }>(params: P): P => ({
    ...params,
    query: `USE ${database}; ${params.query}`,
    clickhouse_settings: { ...params.clickhouse_settings, output_format_json_quote_64bit_integers: 1 },
  });
  return {
    query: (params) => session.query(scoped(params)),
    exec: (params) => session.exec(scoped(params)),
    command: (params) => session.command(scoped(params)),
    insert: (params) => session.insert(scoped(params)),
    ping: (params) => session.ping(params),
    close: async () => {},
  };
}
