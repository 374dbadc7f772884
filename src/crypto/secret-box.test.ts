import { mkdtemp, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSecretBox, loadMasterKey, parseMasterKey } from "./secret-box.ts";

const HEX_KEY = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

describe("secret box", () => {
  it("round-trips a secret and never leaves the plaintext in the sealed text", () => {
    const box = createSecretBox(Buffer.from(HEX_KEY, "hex"));
    const sealed = box.seal("sk-live-abcdef");
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain("sk-live");
    expect(box.open(sealed)).toBe("sk-live-abcdef");
    expect(box.seal("sk-live-abcdef")).not.toBe(sealed);
  });

  it("refuses tampered text and text sealed under another key", () => {
    const box = createSecretBox(Buffer.from(HEX_KEY, "hex"));
    const sealed = box.seal("secret");
    const parts = sealed.split(".");
    const tampered = [...parts.slice(0, 3), Buffer.from("other").toString("base64url")].join(".");
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
