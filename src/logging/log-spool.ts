/**
 * The log spool: an append-only local file that holds log batches while the store cannot take
 * them, replayed oldest first when it can. One line per batch (a JSON array of packed entries);
 * a side file holds how many bytes have been replayed, so a restart resumes where the last
 * process stopped. Replaying the same batch twice is harmless (the store skips ids it holds),
 * which is what makes "exactly once" hold across a crash between a write and its bookkeeping.
 */
import { randomUUID } from "node:crypto";
import { mkdir, open, readFile, rm, writeFile, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { packLogEntry, unpackLogEntry, type LogEntry } from "./log-entry.ts";

export interface LogSpool {
  /** The spool file, for the gateway's own log. */
  readonly path: string;
  /** True when no batch is waiting. */
  readonly isEmpty: boolean;
  /** Bytes waiting to be replayed. */
  readonly pendingBytes: number;
  /** Appends a batch durably (written and synced). Throws when it cannot: disk full, or past the size limit. */
  append(entries: readonly LogEntry[]): Promise<void>;
  /** The oldest waiting batch, or null. Reading it again before `dropHead` returns the same batch. */
  head(): Promise<LogEntry[] | null>;
  /** Marks the oldest batch replayed; an empty spool is truncated. */
  dropHead(): Promise<void>;
  /** Keeps entries the store refused, one per line, in `rejected.jsonl` beside the spool, for the operator. */
  reject(entries: readonly LogEntry[]): Promise<void>;
  /** Releases the spool's slot for the next process. */
  close(): Promise<void>;
}

export class SpoolFullError extends Error {
  constructor(limit: number) {
    super(`the log spool reached its limit of ${limit} bytes (GATEWAY_LOG_SPOOL_MAX_BYTES)`);
    this.name = "SpoolFullError";
  }
}

const MAX_SLOTS = 64;
const READ_CHUNK_BYTES = 1 << 20;
/** Lock tokens this process holds: a lock naming this pid but another token is a previous incarnation's (a container's pid 1). */
const heldTokens = new Set<string>();

/**
 * Opens the spool in `dir`, taking the first free slot (`spool-<n>`): processes sharing a data
 * directory each get their own file, and a slot whose owner died is taken over, with its
 * waiting batches, by the next process that starts.
 */
export async function openLogSpool(dir: string, options: { maxBytes: number }): Promise<LogSpool> {
  await mkdir(dir, { recursive: true });
  const slot = await claimSlot(dir);
  const path = join(dir, `spool-${slot.index}.jsonl`);
  const offsetPath = join(dir, `spool-${slot.index}.offset`);
  const file = await open(path, "a+");
  let size = await trimPartialLine(file);
  let offset = Math.min(size, await readOffset(offsetPath));
  let cachedHead: { entries: LogEntry[]; bytes: number } | null = null;

  const reset = async () => {
    // Truncate first: a crash in between leaves an offset past the end, which reads as empty.
    await file.truncate(0);
    await writeFile(offsetPath, "0");
    size = 0;
    offset = 0;
  };
  if (offset >= size && size > 0) await reset();
  // One operation at a time: the writer appends a full queue's oldest records while it replays,
  // and an append landing during a replay's truncation would leave a hole where its line was.
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <A extends unknown[], T>(operation: (...args: A) => Promise<T>) => (...args: A): Promise<T> => {
    const run = turn.then(() => operation(...args));
    turn = run.catch(() => undefined);
    return run;
  };

  const readHead = async (): Promise<LogEntry[] | null> => {
    while (!cachedHead && offset < size) {
      const line = await readLine(file, offset, size);
      const entries = parseBatch(line.text);
      if (entries) cachedHead = { entries, bytes: line.bytes };
      else {
        // A line that does not parse cannot be replayed; it is kept for the operator, not retried forever.
        await writeFile(join(dir, "rejected.jsonl"), `${line.text}\n`, { flag: "a" });
        offset += line.bytes;
        await writeFile(offsetPath, String(offset));
      }
    }
    if (offset >= size && size > 0 && !cachedHead) await reset();
    return cachedHead?.entries ?? null;
  };

  return {
    path,
    get isEmpty() {
      return offset >= size;
    },
    get pendingBytes() {
      return size - offset;
    },
    append: inTurn(async (entries: readonly LogEntry[]) => {
      const line = Buffer.from(`${JSON.stringify(entries.map(packLogEntry))}\n`);
      if (size - offset + line.length > options.maxBytes) throw new SpoolFullError(options.maxBytes);
      try {
        await file.write(line, 0, line.length, size);
        await file.datasync();
        size += line.length;
      } catch (error) {
        // A half-written line (disk full) must not stay: the next append would follow it.
        await file.truncate(size).catch(() => undefined);
        throw error;
      }
    }),
    head: inTurn(readHead),
    dropHead: inTurn(async () => {
      if (!cachedHead) await readHead();
      if (!cachedHead) return;
      offset += cachedHead.bytes;
      cachedHead = null;
      if (offset >= size) await reset();
      else await writeFile(offsetPath, String(offset));
    }),
    reject: inTurn(async (entries: readonly LogEntry[]) => {
      const lines = entries.map((entry) => `${JSON.stringify(packLogEntry(entry))}\n`).join("");
      await writeFile(join(dir, "rejected.jsonl"), lines, { flag: "a" });
    }),
    close: inTurn(async () => {
      await file.close();
      await slot.release();
    }),
  };
}

async function claimSlot(dir: string): Promise<{ index: number; release: () => Promise<void> }> {
  const token = `${process.pid} ${randomUUID()}`;
  for (let index = 0; index < MAX_SLOTS; index++) {
    const lockPath = join(dir, `spool-${index}.lock`);
    if (!(await tryLock(lockPath, token))) continue;
    heldTokens.add(token);
    return {
      index,
      release: async () => {
        heldTokens.delete(token);
        await rm(lockPath, { force: true });
      },
    };
  }
  throw new Error(`every log spool slot in ${dir} is taken`);
}

async function tryLock(lockPath: string, token: string): Promise<boolean> {
  try {
    await writeFile(lockPath, token, { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const holder = await readFile(lockPath, "utf8").catch(() => "");
  if (holderAlive(holder)) return false;
  // A dead holder's lock: take it over (a race with another process taking it too is settled by `wx`).
  await rm(lockPath, { force: true });
  try {
    await writeFile(lockPath, token, { flag: "wx" });
    return true;
  } catch {
    return false;
  }
}

function holderAlive(holder: string): boolean {
  const pid = Number(holder.split(" ")[0]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return heldTokens.has(holder);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function readOffset(offsetPath: string): Promise<number> {
  const text = await readFile(offsetPath, "utf8").catch(() => "0");
  const offset = Number(text.trim());
  return Number.isSafeInteger(offset) && offset > 0 ? offset : 0;
}

/** Drops a last line that has no newline (a write cut off by a crash) and returns the size. */
async function trimPartialLine(file: FileHandle): Promise<number> {
  const { size } = await file.stat();
  let end = size;
  const chunk = Buffer.alloc(64 * 1024);
  while (end > 0) {
    const start = Math.max(0, end - chunk.length);
    const { bytesRead } = await file.read(chunk, 0, end - start, start);
    const newline = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (newline >= 0) {
      const complete = start + newline + 1;
      if (complete < size) await file.truncate(complete);
      return complete;
    }
    end = start;
  }
  if (size > 0) await file.truncate(0);
  return 0;
}

function parseBatch(text: string): LogEntry[] | null {
  try {
    const packed: unknown = JSON.parse(text);
    return Array.isArray(packed) && packed.every(Array.isArray) ? packed.map(unpackLogEntry) : null;
  } catch {
    return null;
  }
}

async function readLine(file: FileHandle, from: number, size: number): Promise<{ text: string; bytes: number }> {
  const parts: Buffer[] = [];
  let position = from;
  while (position < size) {
    const chunk = Buffer.alloc(Math.min(READ_CHUNK_BYTES, size - position));
    const { bytesRead } = await file.read(chunk, 0, chunk.length, position);
    if (bytesRead === 0) break;
    const newline = chunk.subarray(0, bytesRead).indexOf(0x0a);
    if (newline >= 0) {
      parts.push(chunk.subarray(0, newline));
      return { text: Buffer.concat(parts).toString("utf8"), bytes: position - from + newline + 1 };
    }
    parts.push(chunk.subarray(0, bytesRead));
    position += bytesRead;
  }
  throw new Error("the log spool ends in the middle of a batch");
}
