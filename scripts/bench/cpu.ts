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

/** CPU seconds of each thread of a process (from /proc/<pid>/task), keyed by thread id; empty when unreadable. */
export function readThreadCpu(pid: number): Map<number, { name: string; seconds: number }> {
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
