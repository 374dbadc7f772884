import { describe, expect, it } from "vitest";
import { reachOf } from "./banner.ts";

describe("the start-up banner's address", () => {
  it("names a wildcard bind as every interface, with a URL for this machine", () => {
    for (const host of ["0.0.0.0", "::"]) {
      const reach = reachOf({ host, port: 8787 });
      expect(reach.url).toBe("http://localhost:8787");
      expect(reach.exposure).toMatch(/^every network interface/);
    }
    expect(reachOf({ host: "0.0.0.0", port: 8787 }).bound).toBe("0.0.0.0:8787");
    expect(reachOf({ host: "::", port: 8787 }).bound).toBe("[::]:8787");
  });

  it("says nothing more for loopback, IPv4, IPv6 or by name", () => {
    expect(reachOf({ host: "127.0.0.1", port: 1 })).toEqual({ bound: "127.0.0.1:1", url: "http://127.0.0.1:1", exposure: null });
    expect(reachOf({ host: "127.1.2.3", port: 1 }).exposure).toBeNull();
    expect(reachOf({ host: "::1", port: 1 })).toEqual({ bound: "[::1]:1", url: "http://[::1]:1", exposure: null });
    expect(reachOf({ host: "localhost", port: 1 }).exposure).toBeNull();
  });

  it("names any other address as reachable by other machines", () => {
    expect(reachOf({ host: "192.168.1.20", port: 9 })).toMatchObject({ bound: "192.168.1.20:9", url: "http://192.168.1.20:9" });
    expect(reachOf({ host: "192.168.1.20", port: 9 }).exposure).toMatch(/other machines/);
    expect(reachOf({ host: "fd00::5", port: 9 }).url).toBe("http://[fd00::5]:9");
    expect(reachOf({ host: "gateway.internal", port: 9 }).exposure).toMatch(/^gateway\.internal/);
  });
});
