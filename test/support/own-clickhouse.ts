import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.ts";

/**
 * A ClickHouse server of the caller's own, from Debian's `clickhouse-server` (18.16), with its
 * config, data and logs under a temp folder, on spare loopback ports, run as the current user:
 * the machine's service (if any) is never touched. `.ci/run` installs the package. Its caches
 * have the package's default sizes (upper bounds, filled only as data is read) and its profile
 * leaves the uncompressed cache off, as the package's does: a benchmark on it measures a server
 * as installed.
 */
export interface OwnClickHouse {
  /** `http://default:<password>@127.0.0.1:<port>/default`. */
  url: string;
  /** The URL of a fresh database on this server (created now). */
  database(name: string): Promise<string>;
  /** Stops the server and deletes its files. */
  remove(): Promise<void>;
}

const SERVER = "/usr/sbin/clickhouse-server";
const PASSWORD = "own-clickhouse-test";

function configXml(dir: string, httpPort: number, tcpPort: number): string {
  return `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>${dir}/server.log</log><errorlog>${dir}/error.log</errorlog><console>0</console></logger>
  <http_port>${httpPort}</http_port>
  <tcp_port>${tcpPort}</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>${dir}/data/</path>
  <tmp_path>${dir}/tmp/</tmp_path>
  <user_files_path>${dir}/user_files/</user_files_path>
  <format_schema_path>${dir}/format_schemas/</format_schema_path>
  <mark_cache_size>5368709120</mark_cache_size>
  <uncompressed_cache_size>8589934592</uncompressed_cache_size>
  <max_concurrent_queries>100</max_concurrent_queries>
  <users_config>users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mlock_executable>false</mlock_executable>
</yandex>
`;
}

const USERS_XML = `<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>4000000000</max_memory_usage><use_uncompressed_cache>0</use_uncompressed_cache></default></profiles>
  <users><default><password>${PASSWORD}</password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default></users>
  <quotas><default></default></quotas>
</yandex>
`;

/** Starts the server; resolves once it answers over HTTP (within 30 s). */
export async function startOwnClickHouse(): Promise<OwnClickHouse> {
  const dir = mkdtempSync(join(tmpdir(), "gateway-own-clickhouse-"));
  const httpPort = await freePort();
  const tcpPort = await freePort();
  writeFileSync(join(dir, "config.xml"), configXml(dir, httpPort, tcpPort));
  writeFileSync(join(dir, "users.xml"), USERS_XML);
  const child: ChildProcess = spawn(SERVER, [`--config-file=${join(dir, "config.xml")}`], { stdio: "ignore", cwd: dir });
  // A caller that dies without `remove` (a crash, a failed hook) takes its server with it.
  const killOnExit = () => {
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", killOnExit);
  const base = `http://default:${PASSWORD}@127.0.0.1:${httpPort}`;
  const run = async (statement: string) => {
    const response = await fetch(`http://127.0.0.1:${httpPort}/`, {
      method: "POST",
      body: statement,
      headers: { "X-ClickHouse-User": "default", "X-ClickHouse-Key": PASSWORD },
    });
    if (!response.ok) throw new Error(`ClickHouse answered ${response.status}: ${await response.text()}`);
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`clickhouse-server exited with ${child.exitCode} (see ${dir}/error.log)`);
    try {
      await run("SELECT 1");
      break;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`clickhouse-server did not answer within 30 s: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url: `${base}/default`,
    async database(name) {
      await run(`CREATE DATABASE IF NOT EXISTS ${name}`);
      return `${base}/${name}`;
    },
    async remove() {
      process.off("exit", killOnExit);
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
