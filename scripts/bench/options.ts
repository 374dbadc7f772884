/** Bench settings, read once from BENCH_* environment variables. */
import { targetNames, type TargetName } from "./targets.ts";

export interface BenchOptions {
  /** Seconds per throughput measurement. */
  seconds: number;
  rounds: number;
  connections: number;
  /** Sequential non-streamed requests per target, across all rounds. */
  latencyRequests: number;
  /** Sequential streamed requests per target, across all rounds. */
  streamRequests: number;
  /** Sequential streamed Responses requests per target (time to first event). */
  responsesRequests: number;
  /** 100 MiB uploads per target (direct and gateway). */
  uploads: number;
  warmupSeconds: number;
  driver: "auto" | "wrk" | "node";
  wrkThreads: number;
  targets: TargetName[];
  gatewayReadyMs: number;
  /** Redis for the `limited` target (`BENCH_REDIS_URL`). */
  redisUrl: string;
  /** Profile a gateway's load run afterwards (`--profile` or `BENCH_PROFILE=1`). */
  profile: boolean;
  /** The profiler's sampling interval, µs. */
  profileIntervalUs: number;
  /** Which load the profiled gateway is given (`BENCH_PROFILE_TARGET`). */
  profileTarget: ProfiledTarget;
  /** Seconds per loaded run of the `mcp` target, each side (`BENCH_MCP_SECONDS`). */
  mcpSeconds: number;
}

/** The targets the profiled gateway can be loaded like: those that need nothing but the gateway, the upstream and the MCP server. */
export const profiledTargets = ["gateway", "cache", "fallback", "anthropic", "mcp"] as const;
export type ProfiledTarget = (typeof profiledTargets)[number];

function profileTarget(): ProfiledTarget {
  const raw = process.env.BENCH_PROFILE_TARGET || "gateway";
  const known = profiledTargets.find((name) => name === raw);
  if (!known) throw new Error(`bench: BENCH_PROFILE_TARGET must be one of ${profiledTargets.join(", ")}, got "${raw}"`);
  return known;
}

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`bench: ${name} must be a positive number, got "${raw}"`);
  return value;
}

function driver(): BenchOptions["driver"] {
  const raw = process.env.BENCH_DRIVER ?? "auto";
  if (raw === "auto" || raw === "wrk" || raw === "node") return raw;
  throw new Error(`bench: BENCH_DRIVER must be auto, wrk or node, got "${raw}"`);
}

function targets(): TargetName[] {
  const raw = process.env.BENCH_TARGETS;
  if (raw === undefined || raw === "") return [...targetNames];
  const names = raw.split(",").map((name) => name.trim());
  const known = new Set<string>(targetNames);
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) throw new Error(`bench: unknown BENCH_TARGETS ${unknown.join(", ")}`);
  if (!names.includes("direct")) throw new Error("bench: BENCH_TARGETS must include direct (the baseline)");
  return targetNames.filter((name) => names.includes(name));
}

function profile(argv: readonly string[]): boolean {
  const raw = process.env.BENCH_PROFILE ?? "";
  if (raw !== "" && raw !== "0" && raw !== "1") throw new Error(`bench: BENCH_PROFILE must be 0 or 1, got "${raw}"`);
  return argv.includes("--profile") || raw === "1";
}

export function readOptions(argv: readonly string[] = process.argv.slice(2)): BenchOptions {
  const unknown = argv.filter((arg) => arg !== "--profile");
  if (unknown.length > 0) throw new Error(`bench: unknown argument ${unknown.join(" ")} (the only one is --profile)`);
  return {
    seconds: positive("BENCH_SECONDS", 5),
    rounds: Math.round(positive("BENCH_ROUNDS", 3)),
    connections: Math.round(positive("BENCH_CONNECTIONS", 16)),
    latencyRequests: Math.round(positive("BENCH_LATENCY_REQUESTS", 2000)),
    streamRequests: Math.round(positive("BENCH_STREAM_REQUESTS", 1000)),
    responsesRequests: Math.round(positive("BENCH_RESPONSES_REQUESTS", 500)),
    uploads: Math.round(positive("BENCH_UPLOADS", 3)),
    warmupSeconds: positive("BENCH_WARMUP_SECONDS", 2),
    driver: driver(),
    // One wrk thread leaves the second core to the proxy and upstream under test.
    wrkThreads: Math.round(positive("BENCH_WRK_THREADS", 1)),
    targets: targets(),
    gatewayReadyMs: positive("BENCH_GATEWAY_READY_MS", 20_000),
    redisUrl: process.env.BENCH_REDIS_URL || "redis://127.0.0.1:6379",
    profile: profile(argv),
    profileIntervalUs: Math.round(positive("BENCH_PROFILE_INTERVAL_US", 1000)),
    profileTarget: profileTarget(),
    mcpSeconds: positive("BENCH_MCP_SECONDS", 3),
  };
}
