/** Runs the rebinding scenarios under the runtime that runs this file (Bun, from `test/ssrf-rebinding.test.ts`) and prints their outcomes as JSON. */
import { runRebindingScenarios } from "./rebinding-scenarios.ts";

const outcomes = await runRebindingScenarios();
process.stdout.write(`${JSON.stringify({ runtime: typeof (globalThis as { Bun?: unknown }).Bun === "undefined" ? "node" : "bun", outcomes })}\n`);
process.exit(0);
