/** Starts the upstream, the floor proxy and the gateway on free loopback ports. */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BenchOptions } from "./options.ts";
import { freePort, onExit, spawnBun, waitReady, type Child } from "./processes.ts";
import { cacheTarget, directTarget, floorTarget, gatewayTarget, type Target, type TargetName } from "./targets.ts";

export interface Running {
  targets: Target[];
  /** The Bun process behind each proxy target (direct is the upstream itself). */
  processes: Partial<Record<TargetName, Child>>;
  upstream: Child;
  workDir: string;
}

const ok = async (url: string, init?: RequestInit): Promise<boolean> => (await fetch(url, init)).status < 500;

/** A POST the upstream answers; any HTTP answer at all means the server is listening. */
const listening = (url: string) => () =>
  ok(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });

export async function startAll(options: BenchOptions): Promise<Running> {
  const workDir = mkdtempSync(join(tmpdir(), "gateway-bench-"));
  onExit(() => rmSync(workDir, { recursive: true, force: true }));

  const upstreamPort = await freePort();
  const upstream = spawnBun("upstream", "scripts/bench/upstream.ts", { PORT: String(upstreamPort) });
  await waitReady(upstream, listening(`http://127.0.0.1:${upstreamPort}/v1/chat/completions`), 10_000);
  const targets: Target[] = [directTarget(upstreamPort)];
  const processes: Running["processes"] = { direct: upstream };

  if (options.targets.includes("floor")) {
    const floorPort = await freePort();
    const floor = spawnBun("floor proxy", "scripts/bench/floor-proxy.ts", {
      PORT: String(floorPort),
      UPSTREAM: `http://127.0.0.1:${upstreamPort}`,
    });
    await waitReady(floor, listening(`http://127.0.0.1:${floorPort}/v1/chat/completions`), 10_000);
    targets.push(floorTarget(floorPort));
    processes.floor = floor;
  }

  if (options.targets.includes("gateway") || options.targets.includes("cache")) {
    const gatewayPort = await freePort();
    const adminKey = `bench-admin-${randomBytes(12).toString("hex")}`;
    const gateway = spawnBun("gateway (bun src/server/bun.ts)", "src/server/bun.ts", {
      PORT: String(gatewayPort),
      HOST: "127.0.0.1",
      GATEWAY_DATABASE_URL: `file:${join(workDir, "bench.db")}`,
      GATEWAY_ADMIN_KEY: adminKey,
      GATEWAY_QUIET: "1",
      // The bench upstream lives on loopback, which custom-host checks may refuse by default.
      GATEWAY_TRUSTED_CUSTOM_HOSTS: "127.0.0.1",
    });
    const health = async (): Promise<boolean> => (await fetch(`http://127.0.0.1:${gatewayPort}/health`)).status === 200;
    await waitReady(gateway, health, options.gatewayReadyMs);
    if (options.targets.includes("gateway")) {
      targets.push(gatewayTarget(gatewayPort, upstreamPort, adminKey));
      processes.gateway = gateway;
    }
    // The same process, its cache warmed by the preflight's first request.
    if (options.targets.includes("cache")) {
      targets.push(cacheTarget(gatewayPort, upstreamPort, adminKey));
      processes.cache = gateway;
    }
  }

  return { targets, processes, upstream, workDir };
}
