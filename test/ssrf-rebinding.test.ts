import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { EXPECTED, runRebindingScenarios } from "./support/rebinding-scenarios.ts";

/**
 * SSRF at connect time: DNS rebinding of custom hosts and guardrail webhooks, certificate names
 * over a pinned address, and redirects, on Node (in this process) and on Bun (the same scenarios
 * in a Bun process): one table of outcomes for both runtimes.
 */
describe("DNS rebinding and redirects never reach a private address", () => {
  it("under Node: every scenario gives the expected outcome", async () => {
    expect(await runRebindingScenarios()).toEqual(EXPECTED);
  }, 60_000);

  it("under Bun: every scenario gives the same outcome", async () => {
    const { stdout } = await promisify(execFile)("node_modules/.bin/bun", ["test/support/rebinding-run.ts"], { timeout: 60_000 });
    const result = JSON.parse(stdout.trim().split("\n").at(-1)!) as { runtime: string; outcomes: unknown };
    expect(result.runtime).toBe("bun");
    expect(result.outcomes).toEqual(EXPECTED);
  }, 90_000);
});
