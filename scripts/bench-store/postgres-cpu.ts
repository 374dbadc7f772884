import { readdirSync, readFileSync } from "node:fs";
import { sql } from "kysely";
import type { Store } from "../../src/store/open-store.ts";

/** Fields of `/proc/<pid>/stat` after the command: state is 0, ppid 1, utime 11, stime 12, cutime 13, cstime 14. */
function statFields(pid: number | string): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  } catch {
    return undefined;
  }
}

/**
 * The user + system CPU seconds the PostgreSQL server has used, all its processes: the
 * postmaster's own and its reaped children's (`cutime`, `cstime`), and every live child's
 * (backends, background writers). Read from `/proc` in clock ticks of 1/100 s; undefined when
 * the server is not on this machine.
 */
export async function postgresCpuSeconds(store: Store): Promise<number | undefined> {
  const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(store.db);
  const postmaster = statFields(rows[0]!.pid)?.[1];
  const own = postmaster === undefined ? undefined : statFields(postmaster);
  if (!own) return undefined;
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(entry);
    if (fields !== undefined && fields[1] === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / 100;
}
