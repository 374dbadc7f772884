import type { ServerType } from "@hono/node-server";
import { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { DEFAULT_WORKSPACE_ID } from "../../src/control-plane/auth-context.ts";
import { configWith, type GatewayConfig } from "../../src/config.ts";
import type { LogRecord } from "../../src/records/log-record.ts";
import { createGateway, type Gateway, type GatewayOptions } from "../../src/gateway.ts";
import { serveOnNode } from "../../src/server/node-server.ts";
import { removeSqliteTestDatabase, sqliteTestUrl } from "./databases.ts";

export interface RunningGateway {
  url: string;
  adminKey: string;
  gateway: Gateway;
  /** Writes every pending log record now. */
  flushLogs(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the real gateway app on a loopback port (the Node entry point's server), with an embedded store. */
export async function startGateway(overrides: Partial<GatewayConfig> = {}, options: GatewayOptions = {}): Promise<RunningGateway> {
  const adminKey = `test-admin-${randomBytes(12).toString("hex")}`;
  const databaseUrl = overrides.GATEWAY_DATABASE_URL ?? sqliteTestUrl();
  // Each gateway gets its own data directory (the log spool lives there).
  const dataDir = await mkdtemp(join(tmpdir(), "gateway-data-"));
  const config = configWith({
    GATEWAY_DATABASE_URL: databaseUrl,
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_ADMIN_KEY: adminKey,
    GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    GATEWAY_QUIET: true,
    GATEWAY_LOG_FLUSH_INTERVAL_MS: 20,
    ...overrides,
  });
  const gateway = await createGateway(config, options);
  const server: ServerType = await new Promise((resolve) => {
    const started = serveOnNode(gateway.app.fetch, { port: 0, hostname: "127.0.0.1" }, () => resolve(started));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    adminKey: config.GATEWAY_ADMIN_KEY ?? adminKey,
    gateway,
    flushLogs: () => gateway.deps.logWriter.flush(),
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await gateway.drain();
      if (!overrides.GATEWAY_DATABASE_URL) await removeSqliteTestDatabase(databaseUrl);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The stored log record of a request, once every pending record is written. */
export async function storedLog(gateway: RunningGateway, logId: string): Promise<LogRecord> {
  await gateway.flushLogs();
  const record = await gateway.gateway.deps.store.logs.get(logId, DEFAULT_WORKSPACE_ID);
  if (!record) throw new Error(`no log record ${logId}`);
  return record;
}

/** The stored log record of the request an answer names in `x-gateway-log-id`; throws when it names none. */
export async function storedLogOf(gateway: RunningGateway, response: Pick<Response, "headers">): Promise<LogRecord> {
  const logId = response.headers.get("x-gateway-log-id");
  if (!logId) throw new Error("the answer names no log record (x-gateway-log-id)");
  return storedLog(gateway, logId);
}

/** aimock as the upstream, on a loopback port. */
export async function startUpstream(): Promise<LLMock> {
  const mock = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent" });
  await mock.start();
  return mock;
}

export const UPSTREAM_KEY = "sk-upstream-secret-0123456789";

/** Gateway headers that send a request to the aimock upstream as provider `openai`. */
export function upstreamHeaders(gateway: RunningGateway, upstream: LLMock, key = gateway.adminKey): Record<string, string> {
  return {
    "x-gateway-api-key": key,
    "x-gateway-provider": "openai",
    "x-gateway-custom-host": `${upstream.url}/v1`,
  };
}

/** The official OpenAI client pointed at the gateway. */
export function openaiClient(
  gateway: RunningGateway,
  upstream: LLMock,
  headers: Record<string, string> = {},
  options: { maxRetries?: number } = {},
): OpenAI {
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: UPSTREAM_KEY,
    defaultHeaders: { ...upstreamHeaders(gateway, upstream), ...headers },
    maxRetries: options.maxRetries ?? 0,
  });
}

/** Raw JSON call to the gateway. */
export async function call(
  gateway: RunningGateway,
  method: string,
  path: string,
  options: { body?: unknown; rawBody?: string; headers?: Record<string, string>; key?: string | null } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== null) headers["x-gateway-api-key"] ??= options.key ?? gateway.adminKey;
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (body !== undefined) headers["content-type"] ??= "application/json";
  const response = await fetch(`${gateway.url}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON (e.g. an event stream): the text is returned.
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

export { freePort } from "./free-port.ts";
