import { appendFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { logRecord } from "../store/store-test-fixtures.ts";
import type { LogEntry, LoggedResponse } from "./log-entry.ts";
import { toLogRecord } from "./log-record-builder.ts";
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

  it("keeps a batch appended while the last one is being marked replayed", async () => {
    const spool = await openLogSpool(dir, { maxBytes: 1 << 20 });
    // Marking the only batch replayed empties the file; an append asked for meanwhile follows it.
    for (let round = 0; round < 50; round += 1) {
      await spool.append([entry(`a${round}`)]);
      expect(ids(await spool.head())).toEqual([`a${round}`]);
      await Promise.all([spool.dropHead(), spool.append([entry(`b${round}`), entry(`c${round}`)])]);
      expect(ids(await spool.head())).toEqual([`b${round}`, `c${round}`]);
      await spool.dropHead();
      expect(spool.isEmpty).toBe(true);
    }
    expect(await readFile(join(dir, "rejected.jsonl"), "utf8").catch(() => "")).toBe("");
    await spool.close();
  });

  it("refuses a batch past its size limit and stays usable", async () => {
    const spool = await openLogSpool(dir, { maxBytes: 260 });
    await expect(spool.append([entry("x".repeat(300))])).rejects.toBeInstanceOf(SpoolFullError);
    await spool.append([entry("small")]);
    expect(ids(await spool.head())).toEqual(["small"]);
    await spool.close();
  });
});

describe("a spooled entry", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "log-spool-entry-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("builds the same record as the entry it was written from, for every kind of answer", async () => {
    const base = logRecord(Date.parse("2026-06-01T00:00:00.000Z"), { metadata: { team: "a\u0000b", "__proto__": "x" } });
    const answers: LoggedResponse[] = [
      { kind: "json-text", text: '{"choices":[{"message":{"content":"hé \ud83d\ude00"}}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}', totalBytes: 99, truncated: false, tail: null },
      { kind: "stream", chunks: ['{"choices":[{"delta":{"content":"x"}}]}', "[DONE]"], totalBytes: 50, truncated: false, maxBytes: 1000 },
      { kind: "error", body: { error: { message: "nope", code: null } } },
    ];
    const entries: LogEntry[] = answers.map((response, index) => ({
      ...base,
      id: `0190f000-0000-7000-8000-00000000000${index}`,
      response,
      guardrailResults: [{ check: "regex", verdict: true }],
      format: "json",
      genAiOperation: "embeddings",
    }));
    entries.push({ ...base, id: "0190f000-0000-7000-8000-000000000009", response: null, guardrailResults: null, format: "json", genAiOperation: null });
    const spool = await openLogSpool(dir, { maxBytes: 1 << 20 });
    await spool.append(entries);
    const replayed = await spool.head();
    expect(replayed?.map(toLogRecord)).toEqual(entries.map(toLogRecord));
    await spool.close();
  });
});
