import { createRequire } from "node:module";
import packageJson from "../../package.json" with { type: "json" };
import { startGatewayProcess, type BunGateway } from "./bun-gateway.ts";

/**
 * The command of `npm run start:deno` from package.json, with `deno` resolved to the npm
 * package's native binary (not its Node wrapper, which would keep SIGTERM from Deno), so these
 * tests run exactly what users run.
 */
export function denoCommand(): { command: string; args: string[] } {
  const [program, ...args] = packageJson.scripts["start:deno"].split(/\s+/);
  if (program !== "deno") throw new Error(`npm run start:deno runs "${program}", not deno: update test/support/deno-gateway.ts`);
  const install = createRequire(import.meta.url)("deno/install_api.cjs") as { runInstall(): string };
  return { command: install.runInstall(), args };
}

/**
 * Starts `npm run start:deno` on a free loopback port with the given database URL and extra
 * environment, and waits until `/health` answers.
 */
export function startDenoGateway(databaseUrl: string, env: Record<string, string> = {}): Promise<BunGateway> {
  return startGatewayProcess({ ...denoCommand(), keyPrefix: "deno-e2e", healthyWithinMs: 60_000 }, databaseUrl, env);
}
