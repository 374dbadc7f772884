/** CPU time of child processes, read from /proc (Linux only; figures are NaN elsewhere). */
import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of /proc's utime and stime: USER_HZ, 100 on Linux. */
const TICKS_PER_SECOND = 100;

/** User plus system CPU seconds a process has used so far, all its threads together; NaN when unreadable. */
export function readCpuSeconds(pid: number, statFile = `/proc/${pid}/stat`): number {
  try {
    const stat = readFileSync(statFile, "utf8");
    // Fields after the command name, which is in parentheses and may itself hold spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds of each thread of a process, keyed by thread id. */
export type ThreadCpu = Map<number, { name: string; seconds: number }>;

/** CPU seconds of each thread of a process (from /proc/<pid>/task), keyed by thread id; empty when unreadable. */
export function readThreadCpu(pid: number): ThreadCpu {
  const threads = new Map<number, { name: string; seconds: number }>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return threads;
  }
  for (const tid of tids) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
      threads.set(Number(tid), { name, seconds: readCpuSeconds(Number(tid), `/proc/${pid}/task/${tid}/stat`) });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return threads;
}

/**
 * What a thread of a Bun process does, by its name (`/proc/<pid>/task/<tid>/comm`): the request
 * thread is the process's own name (`bun`), the log worker `Worker`, the upstream client
 * `HTTP Client`; JavaScriptCore's compiler and collector threads and mimalloc's are grouped.
 */
export function threadGroupOf(name: string): string {
  if (name === "bun" || name === "node") return "request thread";
  if (name === "Worker" || name.startsWith("Worker")) return "log worker";
  if (name === "HTTP Client") return "HTTP client";
  if (name.startsWith("JIT") || name === "JSCWarmUp") return "JIT compiler";
  if (name.startsWith("Heap") || name.includes("GC") || name.startsWith("mi-")) return "GC and allocator";
  return "other";
}

/** Each thread group's CPU time between two readings, µs per request. */
export function threadCostsByGroup(before: ThreadCpu, after: ThreadCpu, requests: number): Record<string, number> {
  const groups: Record<string, number> = {};
  for (const [tid, thread] of after) {
    const seconds = thread.seconds - (before.get(tid)?.seconds ?? 0);
    const group = threadGroupOf(thread.name);
    groups[group] = (groups[group] ?? 0) + (seconds * 1e6) / requests;
  }
  return groups;
}
