/**
 * DNS rebinding and redirects against the real gateway, runtime-neutral: the same scenarios run
 * in-process under Node (vitest) and under Bun (`rebinding-run.ts`, spawned with the project's
 * bun), so both runtimes' outbound fetch is held to one table of outcomes (`EXPECTED`). A staged
 * resolver answers the custom-host check one way and later lookups another; loopback servers
 * count the connections that reach them.
 */
import { execFileSync } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configWith } from "../../src/config.ts";
import type { UpstreamTls } from "../../src/net/upstream-tls.ts";
import { GatewayError } from "../../src/errors.ts";
import { createGateway, type Gateway, type GatewayOptions } from "../../src/gateway.ts";
import { mintAccessToken } from "../../src/providers/vertex/mint-token.ts";
import { startGoogleTokenServer } from "./google-token-server.ts";

/** What a scenario observed: the gateway's answer, and whether anything reached the server in question. */
export interface Outcome {
  status: number;
  code: string | null;
  /** Whether a connection (or, over TLS, a request) reached the scenario's server: the pinned one must be, a rebinding or redirect target never. */
  reached: boolean;
  /** How often the resolver was asked for the scenario's name. */
  lookups: number;
}

const PUBLIC = "93.184.215.14";
const COMPLETION = { id: "chatcmpl-pin", object: "chat.completion", created: 1_760_000_000, model: "gpt-4o-mini", choices: [{ index: 0, message: { role: "assistant", content: "pinned" }, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };

/**
 * The outcomes both runtimes must give. Pinned names reach the checked loopback address once
 * looked up (the later answer is never asked for while the verdict is cached); rebinding names,
 * re-resolved at connect (cache lifetime 0), are refused before any connection; redirects are
 * answered, not followed.
 */
export const EXPECTED: Record<string, Outcome> = {
  "pinned http custom host, two requests": { status: 200, code: null, reached: true, lookups: 1 },
  "pinned https custom host, certificate checked for the name": { status: 200, code: null, reached: true, lookups: 1 },
  "https to a name the certificate is not for": { status: 502, code: "upstream_unreachable", reached: false, lookups: 1 },
  "pinned webhook": { status: 200, code: null, reached: true, lookups: 1 },
  "redirect to 169.254.169.254": { status: 502, code: "upstream_error", reached: false, lookups: 0 },
  "redirect to a loopback server": { status: 502, code: "upstream_error", reached: false, lookups: 0 },
  "custom host rebinding to 127.0.0.1": { status: 400, code: "forbidden_custom_host", reached: false, lookups: 2 },
  "custom host rebinding to 10.0.0.1": { status: 400, code: "forbidden_custom_host", reached: false, lookups: 2 },
  "custom host rebinding to 169.254.169.254": { status: 400, code: "forbidden_custom_host", reached: false, lookups: 2 },
  "webhook redirecting to a loopback server": { status: 446, code: "guardrail_denied", reached: false, lookups: 0 },
  "vertex token exchange on a pinned name": { status: 200, code: null, reached: true, lookups: 1 },
  "vertex token exchange rebinding to 127.0.0.1": { status: 400, code: "forbidden_custom_host", reached: false, lookups: 0 },
  "realtime socket to a pinned name": { status: 101, code: null, reached: true, lookups: 1 },
  "realtime socket to a pinned name over TLS": { status: 101, code: null, reached: true, lookups: 1 },
  "webhook rebinding to 127.0.0.1": { status: 446, code: "guardrail_denied", reached: false, lookups: 2 },
};

/** A resolver answering each name from its list of answers in turn (the last one repeats), counting the calls. */
function stagedResolver(table: Record<string, string[][]>) {
  const calls = new Map<string, number>();
  const lookup = async (hostname: string): Promise<string[]> => {
    const count = calls.get(hostname) ?? 0;
    calls.set(hostname, count + 1);
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return answers[Math.min(count, answers.length - 1)]!;
  };
  return { lookup, lookups: (hostname: string) => calls.get(hostname) ?? 0 };
}

interface Counted {
  port: number;
  /** TCP connections accepted. */
  connections(): number;
  /** `Host` headers of the HTTP requests served. */
  hosts: string[];
  server: Server;
}

/** A loopback server that counts TCP connections and answers as a chat upstream, a webhook, or with `answer`. */
async function counted(server: Server, answer?: (response: ServerResponse) => void): Promise<Counted> {
  let connections = 0;
  const hosts: string[] = [];
  server.on("connection", () => connections++);
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    hosts.push(String(request.headers.host));
    request.resume();
    request.on("end", () => {
      if (answer) return answer(response);
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(request.url?.endsWith("/hook") ? { verdict: true } : COMPLETION));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, connections: () => connections, hosts, server };
}

/** Accepts WebSocket upgrades (a bare 101, enough for a client to open) and records their `Host`. */
const upgraded: import("node:stream").Duplex[] = [];

function acceptUpgrades(target: Counted): string[] {
  const hosts: string[] = [];
  target.server.on("upgrade", (request: IncomingMessage, socket: import("node:stream").Duplex) => {
    hosts.push(String(request.headers.host));
    const accept = createHash("sha1").update(`${String(request.headers["sec-websocket-key"])}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64");
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    upgraded.push(socket);
  });
  return hosts;
}

/** Opens a realtime upstream socket with this runtime's client (the gateway's own) at the guard's addresses; 101 when it opened. */
async function openRealtime(url: string, addresses: readonly string[] | null, tls: UpstreamTls | null): Promise<{ status: number; code: string | null }> {
  const runtime = typeof (globalThis as { Bun?: unknown }).Bun === "undefined" ? await import("../../src/server/realtime-node.ts") : await import("../../src/server/realtime-bun.ts");
  const connect = "connectWithWs" in runtime ? runtime.connectWithWs : runtime.connectWithBun;
  const opened = await connect(
    { url, addresses, headers: {}, timeoutMs: 5000, providerName: "test", refused: (status) => new GatewayError("upstream_error", `HTTP ${status}`), tls },
    { message: () => undefined, close: () => undefined },
  );
  if (!opened.ok) return { status: opened.error.status, code: opened.error.code };
  opened.value.terminate();
  return { status: 101, code: null };
}

const redirectTo = (location: string) => (response: ServerResponse) => {
  response.writeHead(302, { location });
  response.end();
};

/** A CA and a server certificate for `tls.test` only, made with the openssl CLI. */
function certificates(dir: string): { ca: string; key: string; cert: string } {
  const openssl = (...args: string[]): void => void execFileSync("openssl", args, { cwd: dir, stdio: "ignore" });
  openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=rebinding-ca");
  openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=tls.test");
  execFileSync("sh", ["-c", "printf 'subjectAltName=DNS:tls.test\\n' > server.ext"], { cwd: dir });
  openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.crt", "-days", "2", "-extfile", "server.ext");
  const read = (name: string) => readFileSync(join(dir, name), "utf8");
  return { ca: read("ca.crt"), key: read("server.key"), cert: read("server.crt") };
}

async function gatewayWith(dir: string, customHosts: GatewayOptions["customHosts"], upstreamTls: UpstreamTls | null) {
  const adminKey = `rebinding-${randomBytes(8).toString("hex")}`;
  const config = configWith({
    GATEWAY_DATABASE_URL: `file:${join(dir, randomUUID(), "store.db")}`,
    GATEWAY_ADMIN_KEY: adminKey,
    GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    GATEWAY_QUIET: true,
    GATEWAY_ALLOW_PUBLIC_CUSTOM_HOSTS: true,
  });
  const gateway = await createGateway(config, { customHosts, upstreamTls });
  const send = async (path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; code: string | null; body: unknown }> => {
    const response = await gateway.app.fetch(
      new Request(`http://gateway.local${path}`, { method: "POST", headers: { "content-type": "application/json", "x-gateway-api-key": adminKey, ...headers }, body: JSON.stringify(body) }),
    );
    const parsed = (await response.json()) as { error?: { code?: string } };
    return { status: response.status, code: parsed.error?.code ?? null, body: parsed };
  };
  return { gateway, send };
}

const chat = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] };
const toHost = (customHost: string) => ({ "x-gateway-provider": "openai-compatible", "x-gateway-custom-host": customHost, authorization: "Bearer sk-upstream" });

/** Runs every scenario of `EXPECTED` on the current runtime and returns what each observed. */
export async function runRebindingScenarios(): Promise<Record<string, Outcome>> {
  const dir = mkdtempSync(join(tmpdir(), "gateway-rebinding-"));
  const pki = certificates(dir);
  const plain = await counted(createHttpServer());
  const secure = await counted(createHttpsServer({ key: pki.key, cert: pki.cert }));
  const hook = await counted(createHttpServer());
  const loopTarget = await counted(createHttpServer());
  const hookTarget = await counted(createHttpServer());
  const guarded = await counted(createHttpServer());
  const toMetadata = await counted(createHttpServer(), redirectTo("http://169.254.169.254/latest/meta-data/"));
  const toLoopback = await counted(createHttpServer(), redirectTo(`http://127.0.0.1:${guarded.port}/v1/chat/completions`));
  const sockets = await counted(createHttpServer());
  const socketHosts = acceptUpgrades(sockets);
  const secureSocketHosts = acceptUpgrades(secure);
  const tokens = await startGoogleTokenServer();
  const servers = [plain, secure, hook, loopTarget, hookTarget, guarded, toMetadata, toLoopback, sockets];
  const resolver = stagedResolver({
    "pinned.test": [["127.0.0.1"], ["10.9.9.9"]],
    "tls.test": [["127.0.0.1"], ["10.9.9.9"]],
    "rt.test": [["127.0.0.1"], ["10.9.9.9"]],
    "token.test": [["127.0.0.1"], ["10.9.9.9"]],
    "other.test": [["127.0.0.1"]],
    "hook-pinned.test": [["127.0.0.1"], ["10.9.9.9"]],
    // The system resolver answers loopback for this name: unpinned, a connection would reach the server.
    localhost: [[PUBLIC], ["127.0.0.1"]],
    "rebind-private.test": [[PUBLIC], ["10.0.0.1"]],
    "rebind-meta.test": [[PUBLIC], ["169.254.169.254"]],
  });
  // Its own resolver, so the webhook's lookups never depend on the custom host's.
  const hookResolver = stagedResolver({ localhost: [[PUBLIC], ["127.0.0.1"]], "upstream.test": [[PUBLIC]] });
  // Pinning: loopback allowed, verdicts cached; the CA of tls.test trusted (as mTLS's CA).
  const pinning = await gatewayWith(dir, { lookup: resolver.lookup, trustLoopback: true }, { key: pki.key, cert: pki.cert, ca: pki.ca });
  // Rebinding: loopback refused, every connection re-resolves (no cached verdict to pin).
  const rebinding = await gatewayWith(dir, { lookup: resolver.lookup, trustLoopback: false, cacheTtlMs: 0 }, null);
  const rebindingHooks = await gatewayWith(dir, { lookup: hookResolver.lookup, trustLoopback: false, cacheTtlMs: 0 }, null);
  const outcomes: Record<string, Outcome> = {};
  const record = (name: string, answer: { status: number; code: string | null }, connections: number, hostname: string | null, asked = resolver) => {
    outcomes[name] = { status: answer.status, code: answer.code, reached: connections > 0, lookups: hostname ? asked.lookups(hostname) : 0 };
  };
  const guardrail = async (target: typeof pinning, url: string) => {
    const created = await target.send("/v1/guardrails", { name: "hook", checks: [{ type: "webhook", params: { url } }], action: { deny: true } });
    return (created.body as { slug: string }).slug;
  };
  try {
    const first = await pinning.send("/v1/chat/completions", chat, toHost(`http://pinned.test:${plain.port}/v1`));
    const second = await pinning.send("/v1/chat/completions", chat, toHost(`http://pinned.test:${plain.port}/v1`));
    const sameHost = plain.hosts.every((host) => host === `pinned.test:${plain.port}`) && plain.hosts.length === 2;
    record("pinned http custom host, two requests", second.status === first.status && sameHost ? second : { status: -1, code: JSON.stringify(plain.hosts) }, plain.connections(), "pinned.test");
    const tls = await pinning.send("/v1/chat/completions", chat, toHost(`https://tls.test:${secure.port}/v1`));
    record("pinned https custom host, certificate checked for the name", tls, secure.hosts.filter((host) => host === `tls.test:${secure.port}`).length, "tls.test");
    const wrongName = await pinning.send("/v1/chat/completions", chat, toHost(`https://other.test:${secure.port}/v1`));
    record("https to a name the certificate is not for", wrongName, secure.hosts.filter((host) => host.startsWith("other.test")).length, "other.test");
    const pinnedHook = await guardrail(pinning, `http://hook-pinned.test:${hook.port}/hook`);
    const hooked = await pinning.send("/v1/chat/completions", chat, {
      "x-gateway-config": JSON.stringify({ provider: "openai", custom_host: `http://127.0.0.1:${plain.port}/v1`, input_guardrails: [pinnedHook] }),
      authorization: "Bearer sk-upstream",
    });
    record("pinned webhook", hooked, hook.hosts.filter((host) => host === `hook-pinned.test:${hook.port}`).length, "hook-pinned.test");
    record("redirect to 169.254.169.254", await pinning.send("/v1/chat/completions", chat, toHost(`http://127.0.0.1:${toMetadata.port}/v1`)), 0, null);
    record("redirect to a loopback server", await pinning.send("/v1/chat/completions", chat, toHost(`http://127.0.0.1:${toLoopback.port}/v1`)), guarded.connections(), null);

    const redirectingHook = await guardrail(pinning, `http://127.0.0.1:${toLoopback.port}/hook`);
    const redirected = await pinning.send("/v1/chat/completions", chat, {
      "x-gateway-config": JSON.stringify({ provider: "openai", custom_host: `http://127.0.0.1:${plain.port}/v1`, input_guardrails: [redirectingHook] }),
      authorization: "Bearer sk-upstream",
    });
    record("webhook redirecting to a loopback server", redirected, guarded.connections(), null);
    // Vertex AI's token exchange on the upstream's host goes through the gateway's pinned fetch.
    const account = JSON.parse(tokens.account("pinned@test-project-123.iam.gserviceaccount.com").keyJson) as { client_email: string; private_key: string };
    const mintAt = async (tokenUri: string, target: typeof pinning) => {
      const minted = await mintAccessToken({ email: account.client_email, privateKey: account.private_key, tokenUri }, target.gateway.deps.fetch);
      return minted instanceof GatewayError ? { status: minted.status, code: minted.code } : { status: 200, code: null };
    };
    const tokenPort = new URL(tokens.tokenUri).port;
    const minted = await mintAt(`http://token.test:${tokenPort}/token`, pinning);
    record("vertex token exchange on a pinned name", minted, tokens.grants.length, "token.test");
    const socketAddresses = await pinning.gateway.deps.addressesForConnect("rt.test");
    const socket = await openRealtime(`ws://rt.test:${sockets.port}/v1/realtime`, socketAddresses.ok ? socketAddresses.value : null, null);
    record("realtime socket to a pinned name", socket, socketHosts.filter((host) => host === `rt.test:${sockets.port}`).length, "rt.test");
    const tlsAddresses = await pinning.gateway.deps.addressesForConnect("tls.test");
    const secureSocket = await openRealtime(`wss://tls.test:${secure.port}/v1/realtime`, tlsAddresses.ok ? tlsAddresses.value : null, { key: pki.key, cert: pki.cert, ca: pki.ca });
    // tls.test was looked up once, by the https custom-host scenario: its cached verdict serves the socket.
    record("realtime socket to a pinned name over TLS", secureSocket, secureSocketHosts.filter((host) => host === `tls.test:${secure.port}`).length, "tls.test");

    const rebind = (hostname: string, port: number) => rebinding.send("/v1/chat/completions", chat, toHost(`http://${hostname}:${port}/v1`));
    record("custom host rebinding to 127.0.0.1", await rebind("localhost", loopTarget.port), loopTarget.connections(), "localhost");
    record("custom host rebinding to 10.0.0.1", await rebind("rebind-private.test", 80), 0, "rebind-private.test");
    record("custom host rebinding to 169.254.169.254", await rebind("rebind-meta.test", 80), 0, "rebind-meta.test");
    const rebindHook = await guardrail(rebindingHooks, `http://localhost:${hookTarget.port}/hook`);
    const denied = await rebindingHooks.send("/v1/chat/completions", chat, {
      "x-gateway-config": JSON.stringify({ provider: "openai", custom_host: "http://upstream.test/v1", input_guardrails: [rebindHook] }),
      authorization: "Bearer sk-upstream",
    });
    record("webhook rebinding to 127.0.0.1", denied, hookTarget.connections(), "localhost", hookResolver);
    // After the webhook's lookups were counted: localhost now answers 127.0.0.1 to every lookup.
    const grantsBefore = tokens.grants.length;
    const rebound = await mintAt(`http://localhost:${tokenPort}/token`, rebindingHooks);
    record("vertex token exchange rebinding to 127.0.0.1", rebound, tokens.grants.length - grantsBefore, null);
    return outcomes;
  } finally {
    await Promise.all([pinning.gateway, rebinding.gateway, rebindingHooks.gateway].map((gateway: Gateway) => gateway.drain()));
    await tokens.close();
    for (const socket of upgraded.splice(0)) socket.destroy();
    for (const { server } of servers) (server as { closeAllConnections?: () => void }).closeAllConnections?.();
    await Promise.all(servers.map(({ server }) => new Promise((resolve) => server.close(resolve))));
    rmSync(dir, { recursive: true, force: true });
  }
}
