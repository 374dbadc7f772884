import { describe, expect, it } from "vitest";
import { postgresTestUrl } from "../../../test/support/databases.ts";
import { logRecord, scopeId, useStore } from "../store-test-fixtures.ts";
import { copyText } from "./postgres-copy.ts";

describe("COPY text", () => {
  it("escapes the separators, writes null as \\N and U+0000 as U+FFFD", () => {
    const text = copyText([{ a: "x\ty\nz\\w\r", b: null, c: 1.5, d: "a\u0000b" }], ["a", "b", "c", "d"]);
    expect(text).toBe("x\\ty\\nz\\\\w\\r\t\\N\t1.5\ta\uFFFDb\n");
  });
});

describe("the log writer's copy on PostgreSQL", () => {
  const store = useStore(postgresTestUrl);

  it("stores every character a body may carry exactly, and a retried batch once", async () => {
    const workspaceId = scopeId("ws");
    const awkward = 'tab\there, newline\nthere, CR\r, backslash \\ and \\N, quote " and \u00e9\u{1F600}';
    const records = [
      logRecord(Date.parse("2026-05-01T10:00:00.000Z"), {
        workspaceId,
        user: awkward,
        requestBody: JSON.stringify({ text: awkward }),
        errorMessage: awkward,
        metadata: { team: awkward, "key\twith tab": "v\\1" },
      }, 1),
      logRecord(Date.parse("2026-05-01T10:00:01.000Z"), { workspaceId, user: null, costUsd: null, metadata: {} }, 2),
    ];
    await store().logs.insertBatch(records);
    await store().logs.insertBatch(records);
    expect(await store().logs.count(workspaceId)).toBe(2);
    const stored = await store().logs.get(records[0]!.id, workspaceId);
    expect(stored?.user).toBe(awkward);
    expect(stored?.requestBody).toBe(JSON.stringify({ text: awkward }));
    expect(stored?.errorMessage).toBe(awkward);
    expect(stored?.metadata).toEqual({ team: awkward, "key\twith tab": "v\\1" });
    const found = await store().logs.list({ workspaceId, limit: 10, metadata: { team: awkward } });
    expect(found.records.map((record) => record.id)).toEqual([records[0]!.id]);
    const plain = await store().logs.get(records[1]!.id, workspaceId);
    expect(plain?.user).toBeNull();
    expect(plain?.costUsd).toBeNull();
  });
});
