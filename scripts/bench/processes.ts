/**
 * Child processes of the bench: spawn, wait until ready, and always kill on the way out
 * (normal exit, thrown error, Ctrl-C), so no server outlives a run.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { resolve } from "node:path";

export const repoRoot = resolve(import.meta.dirname, "../..");
export const bunPath = resolve(repoRoot, "node_modules/.bin/bun");

export interface Child {
  name: string;
  process: ChildProcess;
  pid: number;
  /** Last 64 KiB of stderr and stdout, for error reports. */
  output(): string;
  exited: boolean;
}

const children: Child[] = [];
const exitHooks: Array<() => void> = [];

/** Kills every child still running. Synchronous, so it is safe inside `process.on("exit")`. */
export function killAll(): void {
  for (const child of children) {
    if (!child.exited && !child.process.killed) child.process.kill("SIGKILL");
  }
  for (const hook of exitHooks.splice(0)) hook();
}

/** Runs a synchronous clean-up step (e.g. removing a temp dir) on every kind of exit. */
export function onExit(hook: () => void): void {
  exitHooks.push(hook);
}

let installed = false;
/** Installs exit, signal and crash handlers once. */
export function installCleanup(): void {
  if (installed) return;
  installed = true;
  process.on("exit", killAll);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      console.error(`\nbench: ${signal}, stopping children`);
      killAll();
      process.exit(130);
    });
  }
}

/** Starts `bun [bunArgs] <script>` with extra env; output is kept in a bounded buffer. */
export function spawnBun(name: string, script: string, env: Record<string, string>, bunArgs: string[] = []): Child {
  return spawnTracked(name, bunPath, [...bunArgs, script], env);
}

/** Starts any command as a tracked child, killed with the bench. */
export function spawnTracked(name: string, command: string, args: string[], env: Record<string, string> = {}): Child {
  const proc = spawn(command, args, {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (proc.pid === undefined) throw new Error(`bench: could not start ${name} (${command})`);
  let buffer = "";
  const keep = (data: Buffer): void => {
    buffer = (buffer + data.toString("utf8")).slice(-65_536);
  };
  proc.stdout?.on("data", keep);
  proc.stderr?.on("data", keep);
  const child: Child = { name, process: proc, pid: proc.pid, output: () => buffer, exited: false };
  proc.on("exit", () => {
    child.exited = true;
  });
  // A failed spawn (ENOENT) still emits "error"; the exit flag is what callers watch.
  proc.on("error", () => {
    child.exited = true;
  });
  children.push(child);
  return child;
}

/** Asks the OS for a free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

/**
 * Polls `probe` until it resolves true. Fails with the child's output when the child exits
 * or the deadline passes.
 */
export async function waitReady(child: Child, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exited) break;
    if (await probe().catch(() => false)) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  const why = child.exited ? `exited with code ${child.process.exitCode}` : `not ready after ${timeoutMs / 1000} s`;
  const output = child.output().trim() || "(no output)";
  throw new Error(`bench: ${child.name} ${why}. Its output:\n${output}`);
}
