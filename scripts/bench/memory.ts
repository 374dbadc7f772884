/** Resident memory of child processes, read from /proc (Linux only; figures are NaN elsewhere). */
import { readFileSync } from "node:fs";

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

export interface RssSampler {
  /** Highest VmRSS seen so far, MB. */
  peak(): number;
  stop(): void;
}

/** Samples VmRSS every `intervalMs`; VmHWM at the end is the kernel's own peak and catches spikes between samples. */
export function sampleRss(pid: number, intervalMs = 200): RssSampler {
  let peak = Number.NaN;
  const take = (): void => {
    const rss = readVm(pid, "VmRSS");
    if (!Number.isNaN(rss) && !(rss <= peak)) peak = rss;
  };
  take();
  const timer = setInterval(take, intervalMs);
  timer.unref();
  return {
    peak: () => peak,
    stop: () => clearInterval(timer),
  };
}
