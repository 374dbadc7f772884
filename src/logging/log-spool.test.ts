import { appendFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LogEntry } from "./log-entry.ts";
import { openLogSpool, SpoolFullError } from "./log-spool.ts";

const entry = (id: string): LogEntry => ({ id, metadata: {}, response: null }) as unknown as LogEntry;
const ids = (entries: LogEntry[] | null) => entries?.map((e) => e.id) ?? null;

describe("log spool", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "log-spool-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("hands batches back oldest first and resumes after a restart where the last process stopped", async () => {
    const spool = await openLogSpool(dir, { maxBytes: 1 << 20 });
    await spool.append([entry("a"), entry("b")]);
    await spool.append([entry("c")]);
    await spool.append([entry("d")]);
    expect(ids(await spool.head())).toEqual(["a", "b"]);
    expect(ids(await spool.head())).toEqual(["a", "b"]);
    await spool.dropHead();
    await spool.close();

    const reopened = await openLogSpool(dir, { maxBytes: 1 << 20 });
    expect(ids(await reopened.head())).toEqual(["c"]);
    await reopened.dropHead();
    expect(ids(await reopened.head())).toEqual(["d"]);
    await reopened.dropHead();
    expect(reopened.isEmpty).toBe(true);
    expect(await readFile(reopened.path, "utf8")).toBe("");
    await reopened.close();
  });

  it("drops a line cut off by a crash, and keeps a line that does not parse for the operator", async () => {
    const spool = await openLogSpool(dir, { maxBytes: 1 << 20 });
    await spool.append([entry("kept")]);
    const path = spool.path;
    await spool.close();
    await appendFile(path, 'not json\n[["half');
    const reopened = await openLogSpool(dir, { maxBytes: 1 << 20 });
    expect(ids(await reopened.head())).toEqual(["kept"]);
    await reopened.dropHead();
    expect(await reopened.head()).toBeNull();
    expect(await readFile(join(dir, "rejected.jsonl"), "utf8")).toBe("not json\n");
    await reopened.close();
  });

  it("gives each live process its own slot and takes over a dead process's slot", async () => {
    const first = await openLogSpool(dir, { maxBytes: 1 << 20 });
    const second = await openLogSpool(dir, { maxBytes: 1 << 20 });
    expect(second.path).not.toBe(first.path);
    await first.close();
    await second.close();
    // A lock left by a process that no longer exists (pid 2^22 + 1 is above Linux's pid limit).
    await writeFile(join(dir, "spool-0.lock"), "4194305 gone");
    const third = await openLogSpool(dir, { maxBytes: 1 << 20 });
    expect(third.path).toBe(join(dir, "spool-0.jsonl"));
    await third.close();
  });

  it("refuses a batch past its size limit and stays usable", async () => {
    const spool = await openLogSpool(dir, { maxBytes: 200 });
    await expect(spool.append([entry("x".repeat(300))])).rejects.toBeInstanceOf(SpoolFullError);
    await spool.append([entry("small")]);
    expect(ids(await spool.head())).toEqual(["small"]);
    await spool.close();
  });
});
