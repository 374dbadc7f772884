import { describe, expect, it } from "vitest";
import { generateGatewayKeySecret, hashesEqual, hashGatewayKey } from "./gateway-key-secret.ts";

describe("gateway key hashes", () => {
  it("hashes a secret to lowercase hex SHA-256", () => {
    expect(hashGatewayKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("compares hashes: equal, one character off anywhere, other lengths", () => {
    const hash = hashGatewayKey(generateGatewayKeySecret());
    expect(hashesEqual(hash, `${hash}`)).toBe(true);
    for (const at of [0, 31, 63]) {
      const other = hash.slice(0, at) + (hash[at] === "0" ? "1" : "0") + hash.slice(at + 1);
      expect(hashesEqual(hash, other)).toBe(false);
    }
    expect(hashesEqual(hash, hash.slice(1))).toBe(false);
    expect(hashesEqual("", "")).toBe(true);
  });
});
