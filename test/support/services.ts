/**
 * Where the tests' PostgreSQL and Redis are. `test/support/services.global.ts` (vitest's global
 * setup) settles it before any test file runs: `TEST_POSTGRES_URL` / `TEST_REDIS_URL` when set;
 * else the machine's own servers on 127.0.0.1:5432 and :6379 when they answer; else throwaway
 * servers it starts from the installed binaries on free loopback ports, and names in these
 * variables. A test file that imports this module needs those servers (`npm run test:unit`
 * leaves it out).
 */

/** The shared PostgreSQL's database `test` (trust auth on loopback). */
export function testPostgresUrl(): string {
  return process.env.TEST_POSTGRES_URL || "postgres://postgres@127.0.0.1:5432/test";
}

/** The same server without a database named: for tests that create databases of their own. */
export function testPostgresServerUrl(): string {
  const url = new URL(testPostgresUrl());
  url.pathname = "";
  url.search = "";
  return url.toString().replace(/\/$/, "");
}

/** The shared Redis. */
export function testRedisUrl(): string {
  return process.env.TEST_REDIS_URL || "redis://127.0.0.1:6379";
}
