import { mkdtemp, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { legacySeal } from "./secret-box-fixtures.ts";
import { createSecretBox, loadMasterKey, loadMasterKeys, masterKeyId, parseMasterKey, parseMasterKeys } from "./secret-box.ts";

const HEX_KEY = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

describe("secret box", () => {
  it("round-trips a secret and never leaves the plaintext in the sealed text", () => {
    const box = createSecretBox(Buffer.from(HEX_KEY, "hex"));
    const sealed = box.seal("sk-live-abcdef");
    expect(sealed).toMatch(/^v2\.[\w-]+\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain("sk-live");
    expect(box.open(sealed)).toBe("sk-live-abcdef");
    expect(box.seal("sk-live-abcdef")).not.toBe(sealed);
  });

  it("refuses tampered text and text sealed under another key", () => {
    const box = createSecretBox(Buffer.from(HEX_KEY, "hex"));
    const sealed = box.seal("secret");
    const parts = sealed.split(".");
    const tampered = [...parts.slice(0, 4), Buffer.from("other").toString("base64url")].join(".");
    expect(() => box.open(tampered)).toThrow();
    const other = createSecretBox(Buffer.alloc(32, 7));
    expect(() => other.open(sealed)).toThrow();
    expect(() => box.open("plain")).toThrow(/not a sealed secret/);
  });

  it("reads keys as hex or base64 and rejects other lengths", () => {
    expect(parseMasterKey(HEX_KEY)?.length).toBe(32);
    expect(parseMasterKey(Buffer.alloc(32, 1).toString("base64"))?.length).toBe(32);
    expect(parseMasterKey("short")).toBeNull();
    expect(() => createSecretBox(Buffer.alloc(16))).toThrow();
  });

  it("generates the key file once with mode 600 and reuses it", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "gateway-key-"));
    const first = await loadMasterKey({ dataDir });
    const second = await loadMasterKey({ dataDir });
    expect(second.equals(first)).toBe(true);
    const file = join(dataDir, "encryption.key");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readFile(file, "utf8")).trim()).toBe(first.toString("hex"));
  });

  it("prefers the environment key and rejects a malformed one", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "gateway-key-"));
    expect((await loadMasterKey({ envKey: HEX_KEY, dataDir })).toString("hex")).toBe(HEX_KEY);
    await expect(loadMasterKey({ envKey: "nope", dataDir })).rejects.toThrow(/GATEWAY_ENCRYPTION_KEY/);
  });
});

describe("secret box key ring", () => {
  const keyA = Buffer.alloc(32, 1);
  const keyB = Buffer.alloc(32, 2);

  it("seals under the first key, names it, and opens under any key of the ring", () => {
    const ring = createSecretBox([keyB, keyA]);
    const underA = createSecretBox(keyA).seal("sk-a");
    expect(underA).toMatch(new RegExp(`^v2\\.${masterKeyId(keyA)}\\.`));
    expect(ring.open(underA)).toBe("sk-a");
    expect(ring.isCurrent(underA)).toBe(false);
    const underB = ring.seal("sk-b");
    expect(ring.isCurrent(underB)).toBe(true);
    expect(createSecretBox(keyB).open(underB)).toBe("sk-b");
    expect(() => createSecretBox(keyA).open(underB)).toThrow(/does not hold/);
    expect(masterKeyId(keyA)).not.toBe(masterKeyId(keyB));
  });

  it("binds the key id: a value relabelled with another key's id does not open", () => {
    const ring = createSecretBox([keyB, keyA]);
    const parts = createSecretBox(keyA).seal("sk-a").split(".");
    parts[1] = masterKeyId(keyB);
    expect(() => ring.open(parts.join("."))).toThrow();
  });

  it("opens values sealed before key ids (v1) under whichever key sealed them, and re-seals them only on rotation", () => {
    const legacy = legacySeal(keyA, "sk-old");
    expect(createSecretBox([keyB, keyA]).open(legacy)).toBe("sk-old");
    expect(createSecretBox([keyB, keyA]).isCurrent(legacy)).toBe(false);
    expect(createSecretBox(keyA).isCurrent(legacy)).toBe(true);
    expect(() => createSecretBox(keyB).open(legacy)).toThrow();
  });

  it("reads `new,old` from GATEWAY_ENCRYPTION_KEY and rejects a list with a bad entry", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "gateway-key-"));
    const keys = await loadMasterKeys({ envKey: ` ${keyB.toString("hex")} , ${keyA.toString("base64")}`, dataDir });
    expect(keys.map((key) => key.toString("hex"))).toEqual([keyB.toString("hex"), keyA.toString("hex")]);
    expect(parseMasterKeys(`${keyB.toString("hex")},`)).toBeNull();
    await expect(loadMasterKeys({ envKey: `${keyB.toString("hex")},short`, dataDir })).rejects.toThrow(/comma-separated/);
  });
});
