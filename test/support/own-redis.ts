import { spawn, type ChildProcess } from "node:child_process";
import { Redis } from "ioredis";
import { freePort } from "./free-port.ts";

/** A Redis of the test's own (no persistence) on a free loopback port, for replicas that must share one the test controls. */
export interface OwnRedis {
  url: string;
  stop(): Promise<void>;
}

/** Starts `redis-server` and resolves once it answers. */
export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const child: ChildProcess = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  const probe = new Redis({ port, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on("error", () => undefined);
  const deadline = Date.now() + 10_000;
  while (!(await probe.connect().then(() => true, () => false))) {
    if (Date.now() > deadline) throw new Error("redis-server did not answer in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  probe.disconnect();
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
