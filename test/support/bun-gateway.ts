import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { dirname } from "node:path";
import packageJson from "../../package.json" with { type: "json" };
import { freePort } from "./harness.ts";

/** A gateway process started the way `npm start` starts it. */
export interface BunGateway {
  url: string;
  adminKey: string;
  child: ChildProcess;
  /** Everything the process printed on stderr so far. */
  stderr(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** A leading `NAME=${NAME:-default}` of the start script: the environment's value, or the default. */
const DEFAULTED_VARIABLE = /^([A-Za-z_][A-Za-z0-9_]*)=\$\{\1:-([^}]*)\}$/;

/**
 * The command of `npm start` from package.json, with `bun` resolved to the project's own binary
 * and the variables it sets before it (as the shell would, the environment's own value first),
 * so these tests run exactly what users run.
 */
function startCommand(): { command: string; args: string[]; env: Record<string, string> } {
  const words = packageJson.scripts.start.split(/\s+/);
  const env: Record<string, string> = {};
  for (let match = DEFAULTED_VARIABLE.exec(words[0] ?? ""); match; match = DEFAULTED_VARIABLE.exec(words[0] ?? "")) {
    const [, name, fallback] = match as unknown as [string, string, string];
    env[name] = process.env[name] || fallback;
    words.shift();
  }
  const [program, ...args] = words;
  if (program !== "bun") throw new Error(`npm start runs "${program}", not bun: update test/support/bun-gateway.ts`);
  return { command: "node_modules/.bin/bun", args, env };
}

/**
 * Starts `npm start` on a free loopback port with the given database URL and extra environment,
 * and waits until `/health` answers.
 */
export function startBunGateway(databaseUrl: string, env: Record<string, string> = {}): Promise<BunGateway> {
  const start = startCommand();
  return startGatewayProcess({ command: start.command, args: start.args, keyPrefix: "bun-e2e", healthyWithinMs: 15_000 }, databaseUrl, { ...start.env, ...env });
}

/**
 * Spawns a gateway entry point on a free loopback port with the given database URL (its folder
 * as the data directory) and extra environment, and waits until `/health` answers.
 */
export async function startGatewayProcess(
  entry: { command: string; args: string[]; keyPrefix: string; healthyWithinMs: number },
  databaseUrl: string,
  env: Record<string, string>,
): Promise<BunGateway> {
  const port = await freePort();
  const adminKey = `${entry.keyPrefix}-${randomBytes(12).toString("hex")}`;
  const child = spawn(entry.command, entry.args, {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      GATEWAY_DATABASE_URL: databaseUrl,
      GATEWAY_DATA_DIR: dirname(databaseUrl.slice("file:".length)),
      GATEWAY_ADMIN_KEY: adminKey,
      GATEWAY_QUIET: "1",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (data) => (stderr += String(data)));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + entry.healthyWithinMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the gateway exited early with ${child.exitCode}: ${stderr}`);
    if (await fetch(`${url}/health`).then((response) => response.ok, () => false)) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`the gateway (${entry.command}) did not become healthy within ${entry.healthyWithinMs / 1000} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    adminKey,
    child,
    stderr: () => stderr,
    stop: () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}
