import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../test/support/databases.ts";
import { useStore } from "./store-test-fixtures.ts";
import type { GatewayBatch } from "./batches-repository.ts";

describe.each(TEST_DATABASES)("gateway batches on $name", ({ create }) => {
  const store = useStore(create);

  const batch = (workspaceId: string, id: string): GatewayBatch => ({
    workspaceId,
    id,
    provider: "anthropic",
    virtualKeyId: null,
    apiKeyId: "key-1",
    providerJobId: "msgbatch_1",
    inputFileId: "file-gw1",
    outputFileId: null,
    errorFileId: null,
    status: "in_progress",
    endpoint: "/v1/chat/completions",
    completionWindow: "24h",
    requestCounts: { total: 2, completed: 0, failed: 0 },
    metadata: { run: "nightly" },
    errors: null,
    storage: { bucket: "b" },
    createdAt: "2026-03-01T00:00:00.000Z",
    updatedAt: "2026-03-01T00:00:00.000Z",
    finishedAt: null,
  });

  it("keeps a batch per workspace, lists newest first, and never moves a finished batch back", async () => {
    const batches = store().batches;
    await batches.putBatch(batch("ws-a", "batch_gw01"));
    await batches.putBatch(batch("ws-a", "batch_gw02"));
    expect(await batches.getBatch("ws-b", "batch_gw01")).toBeNull();
    expect(await batches.getBatch("ws-a", "batch_gw01")).toEqual(batch("ws-a", "batch_gw01"));
    expect((await batches.listBatches("ws-a", 10, null)).map((entry) => entry.id)).toEqual(["batch_gw02", "batch_gw01"]);
    expect((await batches.listBatches("ws-a", 10, "batch_gw02")).map((entry) => entry.id)).toEqual(["batch_gw01"]);

    await batches.updateBatch("ws-a", "batch_gw01", { status: "completed", requestCounts: { total: 2, completed: 2, failed: 0 }, outputFileId: "file-gw01o", finishedAt: "2026-03-01T01:00:00.000Z" }, "2026-03-01T01:00:00.000Z");
    await batches.updateBatch("ws-a", "batch_gw01", { status: "in_progress" }, "2026-03-01T01:00:01.000Z");
    expect(await batches.getBatch("ws-a", "batch_gw01")).toMatchObject({ status: "completed", outputFileId: "file-gw01o", requestCounts: { completed: 2 } });
  });

  it("claims each result line once, whoever claims it, concurrently too", async () => {
    const batches = store().batches;
    const lines = Array.from({ length: 450 }, (_, index) => ({ customId: `line-${index}`, logId: `log-${index}` }));
    const [first, second] = await Promise.all([batches.claimLines("batch_gw09", lines, "2026-03-01T00:00:00.000Z"), batches.claimLines("batch_gw09", lines, "2026-03-01T00:00:00.000Z")]);
    expect(first.size + second.size).toBe(450);
    expect([...first].filter((id) => second.has(id))).toEqual([]);
    expect((await batches.claimLines("batch_gw09", lines.slice(0, 3), "2026-03-01T00:00:00.000Z")).size).toBe(0);
    expect((await batches.claimLines("batch_gw10", lines.slice(0, 3), "2026-03-01T00:00:00.000Z")).size).toBe(3);
  });

  it("keeps files per workspace, the first write of an id standing", async () => {
    const batches = store().batches;
    const file = { workspaceId: "ws-a", id: "file-gw01", purpose: "batch", filename: "in.jsonl", bytes: 3, content: "{}\n", createdAt: "2026-03-01T00:00:00.000Z" };
    await batches.putFile(file);
    await batches.putFile({ ...file, content: "changed\n" });
    expect(await batches.getFile("ws-a", "file-gw01")).toEqual(file);
    expect(await batches.getFile("ws-b", "file-gw01")).toBeNull();
    expect(await batches.listFiles("ws-a", 10)).toEqual([{ workspaceId: "ws-a", id: "file-gw01", purpose: "batch", filename: "in.jsonl", bytes: 3, createdAt: "2026-03-01T00:00:00.000Z" }]);
    expect(await batches.deleteFile("ws-b", "file-gw01")).toEqual({ deleted: false, runningBatchId: null });
    expect(await batches.deleteFile("ws-a", "file-gw01")).toEqual({ deleted: true });
    expect(await batches.getFile("ws-a", "file-gw01")).toBeNull();
  });

  it("keeps a file while a batch that has not finished reads it", async () => {
    const batches = store().batches;
    const file = { workspaceId: "ws-a", id: "file-gw07", purpose: "batch", filename: "in.jsonl", bytes: 3, content: "{}\n", createdAt: "2026-03-01T00:00:00.000Z" };
    await batches.putFile(file);
    await batches.putBatch({ ...batch("ws-a", "batch_gw07"), inputFileId: "file-gw07" });
    expect(await batches.deleteFile("ws-a", "file-gw07")).toEqual({ deleted: false, runningBatchId: "batch_gw07" });
    expect(await batches.getFile("ws-a", "file-gw07")).toEqual(file);
    await batches.updateBatch("ws-a", "batch_gw07", { status: "completed" }, "2026-03-01T01:00:00.000Z");
    expect(await batches.deleteFile("ws-a", "file-gw07")).toEqual({ deleted: true });
  });
});
