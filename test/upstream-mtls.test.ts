import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { loadUpstreamTls } from "../src/net/upstream-tls.ts";
import { startBunGateway, type BunGateway } from "./support/bun-gateway.ts";
import { startDenoGateway } from "./support/deno-gateway.ts";
import { removeSqliteTestDatabase, sqliteTestUrl } from "./support/databases.ts";
import { call, startGateway, type RunningGateway } from "./support/harness.ts";

/** A CA, a server certificate for 127.0.0.1 and two client certificates (one from another CA), made with the openssl CLI. */
let dir: string;
const file = (name: string): string => join(dir, name);
const openssl = (...args: string[]): void => void execFileSync("openssl", args, { cwd: dir, stdio: "ignore" });

function makeCa(name: string): void {
  openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.crt`, "-days", "2", "-subj", `/CN=${name}`);
}

function makeSigned(name: string, ca: string, extensions: string): void {
  openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${name}`);
  execFileSync("sh", ["-c", `printf '%s\\n' '${extensions}' > ${name}.ext`], { cwd: dir });
  openssl("x509", "-req", "-in", `${name}.csr`, "-CA", `${ca}.crt`, "-CAkey", `${ca}.key`, "-CAcreateserial", "-out", `${name}.crt`, "-days", "2", "-extfile", `${name}.ext`);
}

/** The HTTPS upstream: it accepts only clients whose certificate its CA signed, and answers one chat completion. */
let upstream: Server;
let upstreamUrl: string;
const clientNames: string[] = [];

const COMPLETION = {
  id: "chatcmpl-mtls",
  object: "chat.completion",
  created: 1_760_000_000,
  model: "gpt-4o-mini",
  choices: [{ index: 0, message: { role: "assistant", content: "Hello over mutual TLS.", refusal: null }, finish_reason: "stop", logprobs: null }],
  usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 },
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gateway-mtls-"));
  makeCa("upstream-ca");
  makeCa("stranger-ca");
  makeSigned("upstream-server", "upstream-ca", "subjectAltName=IP:127.0.0.1");
  makeSigned("gateway-client", "upstream-ca", "extendedKeyUsage=clientAuth");
  makeSigned("stranger-client", "stranger-ca", "extendedKeyUsage=clientAuth");
  upstream = createServer(
    { key: readFileSync(file("upstream-server.key")), cert: readFileSync(file("upstream-server.crt")), ca: readFileSync(file("upstream-ca.crt")), requestCert: true, rejectUnauthorized: true },
    (request, response) => {
      clientNames.push(String((request.socket as TLSSocket).getPeerCertificate().subject?.CN));
      request.resume();
      request.on("end", () => {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify(COMPLETION));
      });
    },
  );
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamUrl = `https://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => upstream?.close(resolve));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const mtlsEnv = (client = "gateway-client") => ({
  UPSTREAM_MTLS_KEY_PATH: file(`${client}.key`),
  UPSTREAM_MTLS_CERT_PATH: file(`${client}.crt`),
  UPSTREAM_MTLS_CA_PATH: file("upstream-ca.crt"),
});

function client(gatewayUrl: string, adminKey: string): OpenAI {
  return new OpenAI({
    baseURL: `${gatewayUrl}/v1`,
    apiKey: "sk-upstream",
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": upstreamUrl },
  });
}

const chat = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "hello" }] };

describe("mutual TLS towards the upstream, under Node in process", () => {
  let withMtls: RunningGateway;
  let stranger: RunningGateway;
  let without: RunningGateway;
  beforeAll(async () => {
    withMtls = await startGateway(mtlsEnv());
    stranger = await startGateway(mtlsEnv("stranger-client"));
    without = await startGateway();
  });
  afterAll(async () => {
    for (const gateway of [withMtls, stranger, without]) await gateway?.close();
  });

  it("presents the client certificate: the upstream that demands one answers", async () => {
    const before = clientNames.length;
    const completion = await client(withMtls.url, withMtls.adminKey).chat.completions.create(chat);
    expect(completion.choices[0]?.message.content).toBe("Hello over mutual TLS.");
    expect(clientNames.slice(before)).toEqual(["gateway-client"]);
  });

  it("is refused upstream without a certificate it trusts: a 502 naming the upstream", async () => {
    const before = clientNames.length;
    for (const gateway of [without, stranger]) {
      const answer = await call(gateway, "POST", "/v1/chat/completions", {
        headers: { "x-gateway-provider": "openai", "x-gateway-custom-host": upstreamUrl, authorization: "Bearer sk-upstream" },
        body: chat,
      });
      expect(answer.status).toBe(502);
      expect(answer.body.error).toMatchObject({ code: "upstream_unreachable", message: expect.stringMatching(/^Could not reach OpenAI: /) });
    }
    expect(clientNames.length).toBe(before);
  });
});

/** Starts an entry point with the gateway's client certificate and checks the upstream that demands one answers it. */
async function presentsCertificate(start: (databaseUrl: string, env: Record<string, string>) => Promise<BunGateway>): Promise<void> {
  const databaseUrl = sqliteTestUrl();
  const gateway = await start(databaseUrl, mtlsEnv());
  try {
    const before = clientNames.length;
    const completion = await client(gateway.url, gateway.adminKey).chat.completions.create(chat);
    expect(completion.choices[0]?.message.content).toBe("Hello over mutual TLS.");
    expect(clientNames.slice(before)).toEqual(["gateway-client"]);
  } finally {
    await gateway.stop();
    await removeSqliteTestDatabase(databaseUrl);
  }
}

describe("mutual TLS under Deno, started as npm run start:deno", () => {
  it("presents the client certificate through undici's fetch (Deno's own takes no dispatcher)", () => presentsCertificate(startDenoGateway), 90_000);
});

describe("mutual TLS under Bun, started as npm start", () => {
  it("presents the client certificate through Bun's fetch", () => presentsCertificate(startBunGateway), 30_000);

  /** Starts `npm start` (bun) and collects its exit code and stderr, which must come quickly. */
  async function failedStart(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
    const child = spawn("node_modules/.bin/bun", ["src/server/bun.ts"], {
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1", GATEWAY_DATABASE_URL: sqliteTestUrl(), GATEWAY_ADMIN_KEY: "mtls-start-admin-key-0123", GATEWAY_QUIET: "1", ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (data) => (stderr += String(data)));
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    clearTimeout(timer);
    return { code, stderr };
  }

  it("stops start-up on a key path that does not exist, naming the variable", async () => {
    const { code, stderr } = await failedStart({ ...mtlsEnv(), UPSTREAM_MTLS_KEY_PATH: file("missing.key") });
    expect(code).toBe(1);
    expect(stderr).toContain("UPSTREAM_MTLS_KEY_PATH");
    expect(stderr).toContain("ENOENT");
    expect(stderr).not.toMatch(/\n\s+at /);
  }, 30_000);

  it("stops start-up on a key that is not the certificate's, without printing the key", async () => {
    const { code, stderr } = await failedStart({ ...mtlsEnv(), UPSTREAM_MTLS_KEY_PATH: file("stranger-client.key") });
    expect(code).toBe(1);
    expect(stderr).toContain("UPSTREAM_MTLS_KEY_PATH");
    expect(stderr).toContain("is not the private key of the certificate in UPSTREAM_MTLS_CERT_PATH");
    expect(stderr).not.toContain("PRIVATE KEY");
  }, 30_000);
});

describe("loadUpstreamTls", () => {
  it("is off without variables, and needs key and certificate together", () => {
    expect(loadUpstreamTls({})).toBeNull();
    expect(() => loadUpstreamTls({ UPSTREAM_MTLS_KEY_PATH: file("gateway-client.key") })).toThrow(/^UPSTREAM_MTLS_CERT_PATH is not set/);
    expect(() => loadUpstreamTls({ UPSTREAM_MTLS_CA_PATH: file("upstream-ca.crt") })).toThrow(/^UPSTREAM_MTLS_CA_PATH is set without/);
  });

  it("names the variable whose file holds no PEM of its kind", () => {
    expect(() => loadUpstreamTls({ UPSTREAM_MTLS_KEY_PATH: file("gateway-client.crt"), UPSTREAM_MTLS_CERT_PATH: file("gateway-client.crt") })).toThrow(/^UPSTREAM_MTLS_KEY_PATH: .* does not hold a PEM private key/);
    expect(() => loadUpstreamTls({ UPSTREAM_MTLS_KEY_PATH: file("gateway-client.key"), UPSTREAM_MTLS_CERT_PATH: file("gateway-client.key") })).toThrow(/^UPSTREAM_MTLS_CERT_PATH: .* does not hold a PEM certificate/);
  });

  it("reads a matching pair and its CA", () => {
    const tls = loadUpstreamTls(mtlsEnv());
    expect(tls?.cert).toContain("BEGIN CERTIFICATE");
    expect(tls?.ca).toContain("BEGIN CERTIFICATE");
  });
});
