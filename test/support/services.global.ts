import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { createConnection } from "node:net";
import { Client } from "pg";
import { freePort } from "./free-port.ts";
import { startOwnPostgres, type OwnPostgres } from "./own-postgres.ts";

/**
 * Vitest global setup: the PostgreSQL and Redis the tests need. For each: the URL in
 * `TEST_POSTGRES_URL` / `TEST_REDIS_URL` when set; else the machine's own server on its default
 * port (127.0.0.1:5432, database `test`; 127.0.0.1:6379) when something answers there; else a
 * throwaway server started from the installed Debian binaries on a free loopback port, stopped
 * and deleted at the end. The choice is printed once. Missing binaries fail the run naming the
 * packages to install. `TEST_SERVICES=own` starts the throwaway servers even when the machine's
 * answer (to try a clean machine's path).
 */
const DEFAULT_POSTGRES = "postgres://postgres@127.0.0.1:5432/test";
const DEFAULT_REDIS = "redis://127.0.0.1:6379";

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.setTimeout(1_000);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(false));
  });
}

function missing(what: string, packages: string): Error {
  return new Error(
    `${what} is needed by the tests, none answers on its default port and its server binary is not installed. ` +
      `Install it with \`apt-get install -y ${packages}\` (Debian), or point the tests at one with the variable named above.`,
  );
}

async function throwawayPostgres(): Promise<{ url: string; stop: () => Promise<void> }> {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root) || !readdirSync(root).some((version) => existsSync(`${root}/${version}/bin/postgres`))) throw missing("PostgreSQL (TEST_POSTGRES_URL)", "postgresql");
  const server: OwnPostgres = await startOwnPostgres();
  const admin = new Client({ connectionString: server.url });
  await admin.connect();
  await admin.query("create database test");
  await admin.end();
  return { url: server.url.replace(/\/postgres$/, "/test"), stop: server.remove };
}

async function throwawayRedis(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (spawnSync("redis-server", ["--version"]).error) throw missing("Redis (TEST_REDIS_URL)", "redis-server");
  const port = await freePort();
  const child: ChildProcess = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  for (let attempt = 0; attempt < 200 && !(await answers(port)); attempt++) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

export default async function setup(): Promise<() => Promise<void>> {
  const stops: (() => Promise<void>)[] = [];
  const own = process.env.TEST_SERVICES === "own";
  const chosen: string[] = [];
  if (process.env.TEST_POSTGRES_URL) chosen.push("PostgreSQL from TEST_POSTGRES_URL");
  else if (!own && (await answers(5432))) {
    process.env.TEST_POSTGRES_URL = DEFAULT_POSTGRES;
    chosen.push("the PostgreSQL on 127.0.0.1:5432");
  } else {
    const postgres = await throwawayPostgres();
    process.env.TEST_POSTGRES_URL = postgres.url;
    stops.push(postgres.stop);
    chosen.push(`a throwaway PostgreSQL on ${new URL(postgres.url).host}`);
  }
  if (process.env.TEST_REDIS_URL) chosen.push("Redis from TEST_REDIS_URL");
  else if (!own && (await answers(6379))) {
    process.env.TEST_REDIS_URL = DEFAULT_REDIS;
    chosen.push("the Redis on 127.0.0.1:6379");
  } else {
    const redis = await throwawayRedis();
    process.env.TEST_REDIS_URL = redis.url;
    stops.push(redis.stop);
    chosen.push(`a throwaway Redis on ${new URL(redis.url).host}`);
  }
  console.log(`[tests] using ${chosen.join(" and ")}`);
  return async () => {
    for (const stop of stops) await stop();
  };
}
