/**
 * What the bench points load at: the same chat request, four ways to reach the upstream (direct,
 * the floor proxy, the logging floor: `logging-floor.ts`), and
 * the same gateway three more ways: `cache` (a cache config, so after the first request every
 * one is a hit that never reaches the upstream), `fallback` (a two-target fallback config whose
 * first target answers) and `limited` (a gateway key with a rate limit counted in Redis); and
 * `anthropic`: the same chat request translated to Anthropic's Messages API and back;
 * `semantic` (`semantic-target.ts`): every request a semantic cache hit. `mcp` is not a chat
 * target: it is a `tools/call` through the gateway's MCP gateway against the same call sent to
 * an MCP server directly, measured in a phase of its own (`mcp.ts`).
 */

export const targetNames = ["direct", "floor", "logged", "gateway", "cache", "fallback", "limited", "anthropic", "semantic", "mcp"] as const;
export type TargetName = (typeof targetNames)[number];

export interface Target {
  name: TargetName;
  /** Full URL of the chat completions endpoint. */
  url: string;
  /** Headers sent with every request (content-type included). */
  headers: Record<string, string>;
}

const json = { "content-type": "application/json" };

export function directTarget(upstreamPort: number): Target {
  return { name: "direct", url: `http://127.0.0.1:${upstreamPort}/v1/chat/completions`, headers: json };
}

export function floorTarget(floorPort: number): Target {
  return { name: "floor", url: `http://127.0.0.1:${floorPort}/v1/chat/completions`, headers: json };
}

export function loggedFloorTarget(port: number, key: string): Target {
  return { name: "logged", url: `http://127.0.0.1:${port}/v1/chat/completions`, headers: { ...json, "x-gateway-api-key": key, authorization: "Bearer sk-bench" } };
}

export function gatewayTarget(gatewayPort: number, upstreamPort: number, adminKey: string): Target {
  return {
    name: "gateway",
    url: `http://127.0.0.1:${gatewayPort}/v1/chat/completions`,
    headers: {
      ...json,
      "x-gateway-api-key": adminKey,
      "x-gateway-provider": "openai",
      "x-gateway-custom-host": `http://127.0.0.1:${upstreamPort}/v1`,
      authorization: "Bearer sk-bench",
    },
  };
}

/** The bench config of the `cache` target: exact-match cache, an hour. */
export const CACHE_CONFIG = JSON.stringify({ cache: { mode: "simple", max_age: 3600 } });

export function cacheTarget(gatewayPort: number, upstreamPort: number, adminKey: string): Target {
  const gateway = gatewayTarget(gatewayPort, upstreamPort, adminKey);
  return { ...gateway, name: "cache", headers: { ...gateway.headers, "x-gateway-config": CACHE_CONFIG } };
}

/** The bench config of the `fallback` target: two targets, the first of which answers. */
export function fallbackConfig(upstreamPort: number): string {
  const target = { provider: "openai", api_key: "sk-bench", custom_host: `http://127.0.0.1:${upstreamPort}/v1` };
  return JSON.stringify({ strategy: { mode: "fallback" }, targets: [target, target] });
}

export function fallbackTarget(gatewayPort: number, upstreamPort: number, adminKey: string): Target {
  const gateway = gatewayTarget(gatewayPort, upstreamPort, adminKey);
  const { "x-gateway-provider": _provider, "x-gateway-custom-host": _host, ...headers } = gateway.headers;
  return { ...gateway, name: "fallback", headers: { ...headers, "x-gateway-config": fallbackConfig(upstreamPort) } };
}

/** The `limited` target: the same request under a gateway key whose rate limit is counted in Redis. */
export function limitedTarget(gatewayPort: number, upstreamPort: number, limitedKey: string): Target {
  const gateway = gatewayTarget(gatewayPort, upstreamPort, limitedKey);
  return { ...gateway, name: "limited" };
}

/** The `anthropic` target: the gateway translating the chat request to `/v1/messages` and the answer back. */
export function anthropicTarget(gatewayPort: number, upstreamPort: number, adminKey: string): Target {
  const gateway = gatewayTarget(gatewayPort, upstreamPort, adminKey);
  return { ...gateway, name: "anthropic", headers: { ...gateway.headers, "x-gateway-provider": "anthropic" } };
}
