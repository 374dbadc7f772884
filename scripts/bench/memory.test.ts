import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { readVm, settledRss, watchPeak } from "./memory.ts";

/** A process that holds 120 MB for a moment on each line it reads, then frees it. */
const SPIKE = `
const spike = () => { let block = Buffer.alloc(120e6, 1); block = null; globalThis.gc(); process.stdout.write("done\\n"); };
process.stdin.on("data", spike);
process.stdout.write("ready\\n");
`;

let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill("SIGKILL");
  child = undefined;
});

async function startSpiker(): Promise<{ pid: number; spike(): Promise<void> }> {
  child = spawn(process.execPath, ["--expose-gc", "-e", SPIKE], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = child.stdout!;
  lines.setEncoding("utf8");
  await once(lines, "data");
  const running = child;
  return {
    pid: running.pid!,
    spike: async () => {
      running.stdin!.write("go\n");
      await once(lines, "data");
    },
  };
}

describe.runIf(process.platform === "linux")("process memory phases", () => {
  it("a phase's peak counts its own spike, and not one from before it began", async () => {
    const spiker = await startSpiker();
    await spiker.spike();
    expect(readVm(spiker.pid, "VmHWM")).toBeGreaterThan(120);

    const quiet = watchPeak(spiker.pid);
    expect(quiet.stop()).toBeLessThan(100);

    const busy = watchPeak(spiker.pid);
    await spiker.spike();
    expect(busy.stop()).toBeGreaterThan(120);
  });

  it("settled RSS reads the process at rest, not its past peak", async () => {
    const spiker = await startSpiker();
    await spiker.spike();
    const rss = await settledRss(spiker.pid, { minMs: 500, maxMs: 3000 });
    expect(rss).toBeGreaterThan(5);
    expect(rss).toBeLessThan(100);
  });
});
