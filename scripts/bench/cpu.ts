/** CPU time of child processes, read from /proc (Linux only; figures are NaN elsewhere). */
import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc's utime and stime: USER_HZ, 100 on Linux. */
const TICKS_PER_SECOND = 100;

/** User plus system CPU seconds a process has used so far, all its threads together; NaN when unreadable. */
export function readCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may itself hold spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}
