import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.ts";

/**
 * A PostgreSQL server of this test's own, from the Debian binaries, on a spare loopback port,
 * so a test can stop and start it without touching the machine's shared server. Run as the
 * `postgres` user when the tests run as root (PostgreSQL refuses to run as root).
 */
export interface OwnPostgres {
  url: string;
  /** Stops the server (fast shutdown: connections are cut) and waits until it is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data; resolves when it accepts connections. */
  start(): Promise<void>;
  /** Stops it and deletes its files. */
  remove(): Promise<void>;
}

function binDir(): string {
  const root = "/usr/lib/postgresql";
  const version = readdirSync(root).sort((a, b) => Number(b) - Number(a))[0];
  if (!version) throw new Error(`no PostgreSQL binaries under ${root}`);
  return join(root, version, "bin");
}

function asPostgres(command: string, args: string[]): { command: string; args: string[] } {
  return process.getuid?.() === 0 ? { command: "runuser", args: ["-u", "postgres", "--", command, ...args] } : { command, args };
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), "gateway-own-pg-"));
  if (process.getuid?.() === 0) {
    const id = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
    chownSync(dir, Number(id.stdout.trim()), Number(gid.stdout.trim()));
  }
  const data = join(dir, "data");
  const init = asPostgres(join(bin, "initdb"), ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  const initialised = spawnSync(init.command, init.args, { encoding: "utf8" });
  if (initialised.status !== 0) throw new Error(`initdb failed: ${initialised.stderr}`);
  const port = await freePort();
  let child: ChildProcess | null = null;

  const start = async () => {
    const run = asPostgres(join(bin, "postgres"), ["-D", data, "-p", String(port), "-k", dir, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"]);
    const started = spawn(run.command, run.args, { stdio: "ignore" });
    child = started;
    for (let attempt = 0; attempt < 200; attempt++) {
      if (started.exitCode !== null) throw new Error(`postgres exited with ${started.exitCode}`);
      const ready = spawnSync(join(bin, "pg_isready"), ["-h", "127.0.0.1", "-p", String(port)]);
      if (ready.status === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error("postgres did not accept connections within 10 s");
  };
  const stop = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    // SIGINT is PostgreSQL's fast shutdown; it goes to the postmaster itself, since runuser does not pass it on.
    const pid = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    process.kill(pid, "SIGINT");
    await exited;
    for (let attempt = 0; attempt < 100 && existsSync(join(data, "postmaster.pid")); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    remove: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
