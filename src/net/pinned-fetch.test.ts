import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { LookupAddress, LookupOptions } from "node:dns";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fail, GatewayError, ok } from "../errors.ts";
import { createCustomHostGuard } from "./custom-host.ts";
import { pinnedLookup, upstreamFetch, type ConnectPin } from "./pinned-fetch.ts";

/** A loopback server that counts its connections. */
let server: Server;
let port: number;
let connections = 0;
beforeAll(async () => {
  server = createServer((_request, response) => response.end("ok"));
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

function lookupWith(pin: ConnectPin, hostname: string, options: LookupOptions) {
  return new Promise<{ error: unknown; address: string | LookupAddress[]; family?: number }>((resolve) => {
    pinnedLookup(pin)(hostname, options, (error, address, family) => resolve({ error, address, family }));
  });
}

describe("pinnedLookup (Node's connect-time lookup)", () => {
  const pin: ConnectPin = { addressesForConnect: async () => ok(["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]) };

  it("answers the pinned addresses, all of them or the first, and of the family asked for", async () => {
    expect(await lookupWith(pin, "api.example.com", { all: true })).toEqual({
      error: null,
      address: [
        { address: "93.184.215.14", family: 4 },
        { address: "2606:2800:21f:cb07:6820:80da:af6b:8b2c", family: 6 },
      ],
      family: undefined,
    });
    expect(await lookupWith(pin, "api.example.com", {})).toEqual({ error: null, address: "93.184.215.14", family: 4 });
    expect(await lookupWith(pin, "api.example.com", { family: 6 })).toEqual({ error: null, address: "2606:2800:21f:cb07:6820:80da:af6b:8b2c", family: 6 });
    const none = await lookupWith({ addressesForConnect: async () => ok(["93.184.215.14"]) }, "api.example.com", { family: 6 });
    expect((none.error as { code?: string }).code).toBe("ENOTFOUND");
  });

  it("hands the guard's refusal to the connection as its error", async () => {
    const refusal = new GatewayError("forbidden_custom_host", "no");
    expect((await lookupWith({ addressesForConnect: async () => fail(refusal) }, "x.example", {})).error).toBe(refusal);
  });

  it("resolves an unpinned name as the system does", async () => {
    const answer = await lookupWith({ addressesForConnect: async () => ok(null) }, "localhost", { all: true });
    expect(answer.error).toBeNull();
    expect((answer.address as LookupAddress[]).map((entry) => entry.address)).toContain("127.0.0.1");
  });
});

describe("upstreamFetch under Node", () => {
  it("connects to the checked address, whatever the name resolves to later", async () => {
    let calls = 0;
    const lookup = async (): Promise<string[]> => (calls++ === 0 ? ["127.0.0.1"] : ["10.0.0.1"]);
    const guard = createCustomHostGuard({ trustedHosts: [], allowPublicHosts: true, lookup });
    const url = `http://pinned.example:${port}/`;
    expect((await guard.check(url)).ok).toBe(true);
    const fetchPinned = await upstreamFetch(null, guard);
    const before = connections;
    const response = await fetchPinned(url, { method: "GET" });
    expect(await response.text()).toBe("ok");
    expect(connections - before).toBe(1);
    expect(calls).toBe(1);
  });

  it("never connects when the name rebinds to a refused address; the fetch fails with the guard's error", async () => {
    let calls = 0;
    const lookup = async (): Promise<string[]> => (calls++ === 0 ? ["93.184.215.14"] : ["127.0.0.1"]);
    const guard = createCustomHostGuard({ trustedHosts: [], allowPublicHosts: true, trustLoopback: false, cacheTtlMs: 0, lookup });
    const url = `http://rebind.example:${port}/`;
    expect((await guard.check(url)).ok).toBe(true);
    const fetchPinned = await upstreamFetch(null, guard);
    const before = connections;
    const error = await fetchPinned(url, { method: "GET" }).then(() => null, (thrown: unknown) => thrown);
    expect((error as { cause?: unknown }).cause).toBeInstanceOf(GatewayError);
    expect(((error as { cause: GatewayError }).cause).code).toBe("forbidden_custom_host");
    expect(connections - before).toBe(0);
    expect(calls).toBe(2);
  });
});
