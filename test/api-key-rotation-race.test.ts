import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, startGateway, type RunningGateway } from "./support/harness.ts";
import { postgresTestUrl, sqliteTestDatabase, type TestDatabase } from "./support/databases.ts";

/**
 * Twenty rotations of one key at once, each caller using its new secret straight away (so the
 * auth cache holds every secret): afterwards only the key's current secret works, plus, with a
 * grace period, the one it replaced. A rotation must forget the secrets it really replaced, not
 * the ones it read before a concurrent rotation committed.
 */

for (const [name, open] of [["PostgreSQL", postgresTestUrl], ["libSQL", sqliteTestDatabase]] as const) {
  describe(`concurrent rotations of one key (${name})`, () => {
    let database: TestDatabase;
    let gateway: RunningGateway;

    beforeAll(async () => {
      database = await open();
      gateway = await startGateway({ GATEWAY_DATABASE_URL: database.url });
    });

    afterAll(async () => {
      await gateway?.close();
      await database?.cleanup();
    });

    const works = async (key: string) => (await call(gateway, "GET", "/v1/logs?limit=1", { key })).status === 200;

    for (const grace of [0, 600]) {
      it(`leaves the current secret working${grace ? " and the one it replaced" : ", alone"} (grace ${grace} s)`, async () => {
        for (let round = 0; round < 3; round++) {
          const created = await call(gateway, "POST", "/v1/api-keys", { body: { name: "raced", role: "service" } });
          expect(created.status).toBe(201);
          const secrets: string[] = [];
          await Promise.all(
            Array.from({ length: 20 }, async () => {
              const rotated = await call(gateway, "POST", `/v1/api-keys/${created.body.id}/rotate`, { body: { grace_period_seconds: grace } });
              expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
              secrets.push(rotated.body.key);
              await works(rotated.body.key);
            }),
          );
          const current = (await call(gateway, "GET", `/v1/api-keys/${created.body.id}`)).body.key_prefix as string;
          const working: string[] = [];
          for (const secret of [created.body.key as string, ...secrets]) if (await works(secret)) working.push(secret);
          expect(working.filter((secret) => secret.startsWith(current))).toHaveLength(1);
          expect(working.length, `round ${round}: ${working.length} secrets work`).toBe(grace === 0 ? 1 : 2);
        }
      }, 60_000);
    }
  });
}
