import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../test/support/databases.ts";
import { SpendFlusher } from "../spend/spend-flusher.ts";
import { apiKeyRecord, newVirtualKey, scopeId, useStore } from "./store-test-fixtures.ts";

const noLimit = { requestsPerMinute: null, requestsPerHour: null, requestsPerDay: null, tokensPerMinute: null, tokensPerHour: null, tokensPerDay: null };

describe.each(TEST_DATABASES)("spend and key limits on $name", ({ create }) => {
  const store = useStore(create);

  it("adds deltas to a key's period row, so replicas' batches sum instead of overwriting", async () => {
    const keyId = randomUUID();
    const month = "2026-03-01T00:00:00.000Z";
    await store().spend.add([{ keyKind: "virtual_key", keyId, periodStart: month, deltaUsd: 0.25 }], "2026-03-02T00:00:00.000Z");
    await store().spend.add(
      [
        { keyKind: "virtual_key", keyId, periodStart: month, deltaUsd: 0.125 },
        { keyKind: "api_key", keyId, periodStart: "none", deltaUsd: 1.5 },
        { keyKind: "virtual_key", keyId, periodStart: "2026-02-01T00:00:00.000Z", deltaUsd: 9 },
      ],
      "2026-03-02T00:00:01.000Z",
    );
    const rows = await store().spend.inPeriods(["none", month]);
    const mine = rows.filter((row) => row.keyId === keyId).sort((a, b) => a.keyKind.localeCompare(b.keyKind));
    expect(mine).toEqual([
      { keyKind: "api_key", keyId, periodStart: "none", spentUsd: 1.5 },
      { keyKind: "virtual_key", keyId, periodStart: month, spentUsd: 0.375 },
    ]);
  });

  it("the flusher writes settled spend in batches and keeps it when a write fails", async () => {
    const keyId = randomUUID();
    let failing = true;
    const repository = { add: (...args: Parameters<ReturnType<typeof store>["spend"]["add"]>) => (failing ? Promise.reject(new Error("down")) : store().spend.add(...args)) };
    const lines: string[] = [];
    const flusher = new SpendFlusher(repository, 60_000, (line) => lines.push(line));
    flusher.add("api_key", keyId, "none", 0.5);
    flusher.add("api_key", keyId, "none", 0.25);
    await flusher.flush();
    expect(lines).toHaveLength(1);
    failing = false;
    flusher.add("api_key", keyId, "none", 0.25);
    await flusher.close();
    const rows = (await store().spend.inPeriods(["none"])).filter((row) => row.keyId === keyId);
    expect(rows).toEqual([{ keyKind: "api_key", keyId, periodStart: "none", spentUsd: 1 }]);
  });

  it("stores a gateway key's budget and rate limit, changes and clears them", async () => {
    const organisationId = scopeId("org");
    const record = apiKeyRecord({
      organisationId,
      budget: { creditLimitUsd: 12.5, period: "daily", alertThreshold: 0.8 },
      rateLimit: { ...noLimit, requestsPerMinute: 10, tokensPerDay: 50_000 },
    });
    await store().apiKeys.insert(record);
    expect(await store().apiKeys.getById(record.id, organisationId, record.workspaceId)).toEqual(record);
    expect(await store().apiKeys.getById(record.id, organisationId, "another-workspace")).toBeUndefined();

    const changed = await store().apiKeys.update(record.id, organisationId, null, { name: "renamed", rateLimit: null });
    expect(changed).toEqual({ ...record, name: "renamed", rateLimit: null });
    const cleared = await store().apiKeys.update(record.id, organisationId, record.workspaceId, { budget: null });
    expect(cleared?.budget).toBeNull();
    expect(await store().apiKeys.update(record.id, "another-org", null, { name: "x" })).toBeUndefined();
  });

  it("stores a virtual key's hour and day windows and alert threshold, and finds it by id", async () => {
    const workspaceId = scopeId("ws");
    const key = newVirtualKey({ workspaceId, budget: { creditLimitUsd: 3, period: "weekly", alertThreshold: 0.5 }, rateLimit: { ...noLimit, requestsPerHour: 7, tokensPerMinute: 900 } });
    const created = await store().virtualKeys.create(key);
    const found = await store().virtualKeys.getById(workspaceId, created.id);
    expect(found?.budget).toEqual({ creditLimitUsd: 3, period: "weekly", alertThreshold: 0.5 });
    expect(found?.rateLimit).toEqual({ ...noLimit, requestsPerHour: 7, tokensPerMinute: 900 });
    expect(await store().virtualKeys.getById("another-workspace", created.id)).toBeUndefined();
  });
});
