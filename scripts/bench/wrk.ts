/**
 * The wrk driver: a C load generator, so the client spends far less CPU than a Node loop would
 * on a 2-core machine. A Lua script sets the POST body and headers and prints a JSON summary.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LoadResult } from "./http-driver.ts";
import { spawnTracked } from "./processes.ts";
import type { Target } from "./targets.ts";

/** True when `wrk` is on PATH. */
export function wrkAvailable(): boolean {
  return spawnSync("wrk", ["--version"], { stdio: "ignore" }).error === undefined;
}

const luaString = (value: string): string => {
  if (value.includes("]==]")) throw new Error("bench: body cannot be embedded in a Lua long string");
  return `[==[${value}]==]`;
};

/** Writes the Lua script for one target and returns its path. */
export function writeWrkScript(dir: string, target: Target, body: string): string {
  const headers = Object.entries(target.headers)
    .map(([name, value]) => `wrk.headers[ ${luaString(name)} ] = ${luaString(value)}`)
    .join("\n");
  const script = `wrk.method = "POST"
wrk.body = ${luaString(body)}
${headers}
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%.0f,"durationUs":%.0f,"connect":%.0f,"read":%.0f,"write":%.0f,"status":%.0f,"timeout":%.0f,"p50Us":%.0f,"p99Us":%.0f}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
`;
  const path = join(dir, `wrk-${target.name}.lua`);
  writeFileSync(path, script);
  return path;
}

interface WrkSummary {
  requests: number;
  durationUs: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
}

/** Runs wrk against a target; non-2xx answers and socket errors count as errors, not requests. */
export async function runWrk(
  target: Target,
  scriptPath: string,
  connections: number,
  seconds: number,
  threads: number,
): Promise<LoadResult> {
  const args = ["-t", String(threads), "-c", String(connections), "-d", `${seconds}s`, "-s", scriptPath, target.url];
  const child = spawnTracked(`wrk → ${target.name}`, "wrk", args);
  await new Promise<void>((done) => {
    if (child.exited) done();
    else child.process.once("exit", () => done());
  });
  const line = child.output().split("\n").find((text) => text.startsWith("WRK_JSON "));
  if (line === undefined) throw new Error(`bench: wrk gave no summary. Its output:\n${child.output()}`);
  const summary = JSON.parse(line.slice("WRK_JSON ".length)) as WrkSummary;
  const errors = summary.connect + summary.read + summary.write + summary.status + summary.timeout;
  const good = Math.max(0, summary.requests - summary.status);
  const elapsed = summary.durationUs / 1e6;
  return { requests: good, errors, seconds: elapsed, rps: good / elapsed };
}
