/** Starts the upstream, the floor proxy and the gateway on free loopback ports. */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BenchOptions } from "./options.ts";
import { freePort, onExit, spawnBun, waitReady, type Child } from "./processes.ts";
import { anthropicTarget, cacheTarget, directTarget, fallbackTarget, floorTarget, gatewayTarget, limitedTarget, loggedFloorTarget, type Target, type TargetName } from "./targets.ts";
import { openStore } from "../../src/store/open-store.ts";
import { semanticTarget } from "./semantic-target.ts";

export interface Running {
  targets: Target[];
  upstreamPort: number;
  /** The Bun process behind each proxy target (direct is the upstream itself). */
  processes: Partial<Record<TargetName, Child>>;
  upstream: Child;
  workDir: string;
  /** The gateway process, when a target on it or `mcp` runs. */
  gateway?: { child: Child; port: number; adminKey: string };
  /** The bench's MCP server (`mcp-upstream.ts`), when `mcp` runs or is profiled; `url` is its endpoint. */
  mcpServer?: { child: Child; url: string };
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

  if (options.targets.includes("logged")) {
    const port = await freePort();
    const key = `bench-logged-${randomBytes(12).toString("hex")}`;
    const database = `file:${join(workDir, "logging-floor.db")}`;
    // The logging floor's worker writes into the gateway's schema: migrated here, as the gateway does at start.
    await (await openStore(database)).close();
    const logged = spawnBun("logging floor", "scripts/bench/logging-floor.ts", { PORT: String(port), UPSTREAM: `http://127.0.0.1:${upstreamPort}`, LOG_DB: database, KEY: key });
    const target = loggedFloorTarget(port, key);
    await waitReady(logged, () => ok(target.url, { method: "POST", headers: target.headers, body: "{}" }), 10_000);
    targets.push(target);
    processes.logged = logged;
  }

  let mcpServer: Running["mcpServer"];
  if (options.targets.includes("mcp") || (options.profile && options.profileTarget === "mcp")) {
    const port = await freePort();
    const child = spawnBun("MCP server", "scripts/bench/mcp-upstream.ts", { PORT: String(port) });
    const url = `http://127.0.0.1:${port}/mcp`;
    await waitReady(child, listening(url), 10_000);
    mcpServer = { child, url };
  }

  let gatewayProcess: Running["gateway"];
  const onGateway: TargetName[] = ["gateway", "cache", "fallback", "limited", "anthropic", "semantic", "mcp"];
  if (onGateway.some((name) => options.targets.includes(name))) {
    gatewayProcess = await startGateway(options, workDir, "gateway (bun src/server/bun.ts)", join(workDir, "bench.db"));
    const { child: gateway, port: gatewayPort, adminKey } = gatewayProcess;
    if (options.targets.includes("gateway")) {
      targets.push(gatewayTarget(gatewayPort, upstreamPort, adminKey));
      processes.gateway = gateway;
    }
    // The same process, its cache warmed by the preflight's first request.
    if (options.targets.includes("cache")) {
      targets.push(cacheTarget(gatewayPort, upstreamPort, adminKey));
      processes.cache = gateway;
    }
    if (options.targets.includes("fallback")) {
      targets.push(fallbackTarget(gatewayPort, upstreamPort, adminKey));
      processes.fallback = gateway;
    }
    if (options.targets.includes("anthropic")) {
      targets.push(anthropicTarget(gatewayPort, upstreamPort, adminKey));
      processes.anthropic = gateway;
    }
    if (options.targets.includes("limited")) {
      targets.push(limitedTarget(gatewayPort, upstreamPort, await createLimitedKey(gatewayPort, adminKey)));
      processes.limited = gateway;
    }
    if (options.targets.includes("semantic")) {
      targets.push(await semanticTarget(gatewayPort, upstreamPort, adminKey));
      processes.semantic = gateway;
    }
  }

  return { targets, upstreamPort, processes, upstream, workDir, ...(gatewayProcess ? { gateway: gatewayProcess } : {}), ...(mcpServer ? { mcpServer } : {}) };
}

/**
 * The runtime settings `npm start` gives the gateway (its script in package.json; a test holds
 * the two equal): JavaScriptCore sizes its heap's growth for 512 MiB of RAM rather than the
 * machine's, so the heap is collected before it grows far past what the gateway holds.
 */
export const GATEWAY_RUNTIME_ENV = { BUN_JSC_forceRAMSize: "536870912" } as const;

/**
 * Starts `bun src/server/bun.ts` on a free port with its own embedded store file and admin key, and
 * waits until it is healthy. `bunArgs` go before the script (a profiler's flags).
 */
export async function startGateway(
  options: BenchOptions,
  workDir: string,
  name: string,
  databaseFile: string,
  bunArgs: string[] = [],
): Promise<{ child: Child; port: number; adminKey: string }> {
  const port = await freePort();
  const adminKey = `bench-admin-${randomBytes(12).toString("hex")}`;
  const child = spawnBun(
    name,
    "src/server/bun.ts",
    {
      PORT: String(port),
      HOST: "127.0.0.1",
      GATEWAY_DATABASE_URL: `file:${databaseFile}`,
      GATEWAY_ADMIN_KEY: adminKey,
      GATEWAY_QUIET: "1",
      // As `npm start` runs it (package.json): the heap sized for 512 MiB of RAM, not the machine's.
      ...GATEWAY_RUNTIME_ENV,
      // The bench upstream lives on loopback, which custom-host checks may refuse by default.
      GATEWAY_TRUSTED_CUSTOM_HOSTS: "127.0.0.1",
      // Shared state for the `limited` target; keys without limits never touch it.
      ...(options.targets.includes("limited") ? { GATEWAY_REDIS_URL: options.redisUrl } : {}),
    },
    bunArgs,
  );
  const health = async (): Promise<boolean> => (await fetch(`http://127.0.0.1:${port}/health`)).status === 200;
  await waitReady(child, health, options.gatewayReadyMs);
  return { child, port, adminKey };
}

/** A service key limited to a billion requests a minute: every request is counted, none refused. */
async function createLimitedKey(gatewayPort: number, adminKey: string): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${gatewayPort}/v1/api-keys`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-gateway-api-key": adminKey },
    body: JSON.stringify({ name: "bench limited", role: "service", rate_limit: { requests_per_minute: 1_000_000_000 } }),
  });
  if (response.status !== 201) throw new Error(`bench: could not create the limited key: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { key: string }).key;
}
