import { loadConfig, type GatewayConfig } from "../config.ts";
import { loadUpstreamTls, type UpstreamTls } from "../net/upstream-tls.ts";

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

/** The mTLS files (`UPSTREAM_MTLS_*`), read once; a bad one stops start-up like a bad variable. */
export function startupUpstreamTls(config: GatewayConfig): UpstreamTls | null {
  try {
    return loadUpstreamTls(config);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}

/**
 * What start-up opens (the gateway, with its stores), or one line saying why it could not (an
 * unreachable database or log store) and exit code 1, rather than a runtime's stack dump.
 */
export async function startupOpen<T>(open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    console.error(`The gateway could not start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
