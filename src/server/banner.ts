import type { Gateway } from "../gateway.ts";
import { classify, parseAddress } from "../net/host-rules.ts";

/** Where the server listens, as `HOST` and the bound port say. */
export interface ListenAddress {
  host: string;
  port: number;
  runtime: string;
}

/** What the banner says of the address: what was bound, a URL to call from this machine, and whether others can reach it. */
export interface Reach {
  /** `host:port` as bound (`0.0.0.0:8787`, `[::1]:8787`). */
  bound: string;
  /** A URL for a client on this machine: `localhost` for a wildcard bind. */
  url: string;
  /** Null on loopback; else who else can connect. */
  exposure: string | null;
}

const WILDCARDS = new Set(["0.0.0.0", "::", "[::]", ""]);

export function reachOf({ host, port }: Pick<ListenAddress, "host" | "port">): Reach {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  const shown = bare.includes(":") ? `[${bare}]` : bare;
  if (WILDCARDS.has(host)) {
    return { bound: `${shown || "0.0.0.0"}:${port}`, url: `http://localhost:${port}`, exposure: "every network interface: any machine that can reach this one on that port can reach the gateway" };
  }
  const address = parseAddress(bare);
  const loopback = bare.toLowerCase() === "localhost" || (address !== null && classify(address) === "loopback");
  return { bound: `${shown}:${port}`, url: `http://${shown}:${port}`, exposure: loopback ? null : `${shown}, an address other machines may reach` };
}

/** What start-up prints: where the gateway listens, who can reach it, and how to make a first call. */
export function startupBanner(gateway: Gateway, listen: ListenAddress): string {
  const { bound, url, exposure } = reachOf(listen);
  const key = gateway.bootstrapKey ?? "$GATEWAY_ADMIN_KEY";
  const lines = [
    `AI gateway ${gateway.deps.version} listening on ${bound} (${listen.runtime}, store: ${gateway.deps.store.dialect})`,
    `Dashboard: ${url}/   API reference: ${url}/docs   OpenAPI document: ${url}/openapi.json`,
  ];
  if (exposure) {
    lines.push(
      `Not loopback: listening on ${exposure}. Its keys are all that protect it, and traffic is plain HTTP.`,
      "Set HOST=127.0.0.1 to keep it to this machine, or put it behind a TLS-terminating proxy.",
    );
  }
  if (gateway.bootstrapKey) {
    lines.push(
      "",
      "First start: created an admin gateway key. It is shown only this once; keep it safe:",
      `  ${gateway.bootstrapKey}`,
    );
  }
  lines.push(
    "",
    "First call:",
    `  curl ${url}/v1/chat/completions \\`,
    `    -H "x-gateway-api-key: ${key}" \\`,
    `    -H "x-gateway-provider: openai" \\`,
    `    -H "Authorization: Bearer $OPENAI_API_KEY" \\`,
    `    -H "Content-Type: application/json" \\`,
    `    -d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hello"}]}'`,
  );
  return lines.join("\n");
}
