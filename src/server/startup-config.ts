import { loadConfig, type GatewayConfig } from "../config.ts";

/**
 * The environment's config for an entry point. A bad value stops start-up with the message
 * naming each variable and exit code 1, without a stack trace: it is the operator's mistake,
 * not the gateway's.
 */
export function startupConfig(): GatewayConfig {
  try {
    return loadConfig();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
