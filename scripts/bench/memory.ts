/** Resident memory of child processes, read from /proc (Linux only; figures are NaN elsewhere). */
import { readFileSync, writeFileSync } from "node:fs";

/** Reads one `Vm*` field of /proc/<pid>/status in MB; NaN when unreadable. */
export function readVm(pid: number, field: "VmRSS" | "VmHWM"): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
    return match?.[1] === undefined ? Number.NaN : Number(match[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}

/** Resets the kernel's peak (VmHWM) to the current RSS; false when the kernel refuses. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

export interface PeakWatch {
  /** Stops watching; the highest RSS since the watch began, MB (NaN when unreadable). */
  stop(): number;
}

/**
 * Watches one phase's peak RSS: VmRSS sampled every `intervalMs`, and the kernel's VmHWM reset
 * when the watch begins, so a spike between samples counts but nothing from an earlier phase does.
 * Where the reset is refused, the samples alone give the peak.
 */
export function watchPeak(pid: number, intervalMs = 200): PeakWatch {
  const hwmIsOurs = resetPeak(pid);
  let peak = Number.NaN;
  const take = (): void => {
    const rss = readVm(pid, "VmRSS");
    if (!Number.isNaN(rss) && !(rss <= peak)) peak = rss;
  };
  take();
  const timer = setInterval(take, intervalMs);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      take();
      const hwm = hwmIsOurs ? readVm(pid, "VmHWM") : Number.NaN;
      return Number.isNaN(hwm) ? peak : Number.isNaN(peak) ? hwm : Math.max(peak, hwm);
    },
  };
}

const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/**
 * VmRSS of a process left alone: sampled every 250 ms for at least `minMs`, until the last second's
 * samples lie within `toleranceMb` of each other (or `maxMs` passes); the last sample, MB.
 */
export async function settledRss(pid: number, { minMs = 2000, maxMs = 10_000, toleranceMb = 1 } = {}): Promise<number> {
  const started = Date.now();
  const recent: number[] = [];
  for (;;) {
    recent.push(readVm(pid, "VmRSS"));
    if (recent.length > 5) recent.shift();
    const elapsed = Date.now() - started;
    const steady = recent.length === 5 && Math.max(...recent) - Math.min(...recent) <= toleranceMb;
    if ((elapsed >= minMs && steady) || elapsed >= maxMs || recent.some(Number.isNaN)) return recent.at(-1) ?? Number.NaN;
    await pause(250);
  }
}
