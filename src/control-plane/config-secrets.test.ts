import { describe, expect, it } from "vitest";
import { createSecretBox } from "../crypto/secret-box.ts";
import { isSealedSecret } from "../crypto/sealed-secret.ts";
import { MASKED_API_KEY, maskConfigSecrets, openConfigSecrets, sealConfigSecrets, type StoredConfig } from "./config-secrets.ts";

const box = createSecretBox(Buffer.alloc(32, 3));

describe("config secrets", () => {
  const config = {
    provider: "openai",
    api_key: "sk-root-secret",
    targets: [{ provider: "groq", api_key: "gsk-target-secret" }, { virtual_key: "vk-a-00000000" }],
  };

  it("seals every api_key, leaves the rest alone, and opens them back", () => {
    const sealed = sealConfigSecrets(config, box);
    const text = JSON.stringify(sealed);
    expect(text).not.toContain("sk-root-secret");
    expect(text).not.toContain("gsk-target-secret");
    expect(isSealedSecret(sealed.api_key)).toBe(true);
    expect(sealed.provider).toBe("openai");
    expect(sealed.targets?.[1]).toEqual({ virtual_key: "vk-a-00000000" });
    expect(openConfigSecrets(sealed, box)).toEqual({ ok: true, value: config });
  });

  it("seals a key whatever its text, even one that looks like a stored secret", () => {
    const lookalikes = ["sealed:sk-typed-by-a-user", `sealed:${box.seal("x")}`, '{"$sealed":"v1.a.b.c"}', MASKED_API_KEY.slice(1)];
    for (const apiKey of lookalikes) {
      const sealed = sealConfigSecrets({ provider: "openai", api_key: apiKey }, box);
      expect(isSealedSecret(sealed.api_key), apiKey).toBe(true);
      expect(JSON.stringify(sealed)).not.toContain(apiKey);
      expect(openConfigSecrets(sealed, box)).toEqual({ ok: true, value: { provider: "openai", api_key: apiKey } });
    }
  });

  it("keeps the stored key where an update sends the mask back, and refuses the mask where none is stored", () => {
    const stored = sealConfigSecrets(config, box);
    const resent = { ...config, api_key: MASKED_API_KEY, targets: [{ provider: "groq", api_key: MASKED_API_KEY }] };
    const kept = sealConfigSecrets(resent, box, stored);
    expect(kept.api_key).toEqual(stored.api_key);
    expect(kept.targets?.[0]?.api_key).toEqual(stored.targets?.[0]?.api_key);
    expect(() => sealConfigSecrets({ targets: [{ provider: "openai" }, { provider: "openai", api_key: MASKED_API_KEY }] }, box, stored)).toThrow(
      expect.objectContaining({ status: 400, param: "config.targets.1.api_key" }),
    );
    expect(() => sealConfigSecrets({ api_key: MASKED_API_KEY }, box, null)).toThrow(expect.objectContaining({ param: "config.api_key" }));
  });

  it("names the place of a key that does not open, and uses a plain stored string as it stands", () => {
    const other = createSecretBox(Buffer.alloc(32, 4));
    const sealed = sealConfigSecrets(config, other);
    expect(openConfigSecrets(sealed, box)).toEqual({ ok: false, error: "api_key" });
    const targetOnly: StoredConfig = { targets: [{ provider: "openai", api_key: { $sealed: "v1.AAAA.BBBB.CCCC" } }] };
    expect(openConfigSecrets(targetOnly, box)).toEqual({ ok: false, error: "targets.0.api_key" });
    expect(openConfigSecrets({ api_key: "sealed:typed-before" }, box)).toEqual({ ok: true, value: { api_key: "sealed:typed-before" } });
  });

  it("masks api keys in the text routes show", () => {
    const shown = JSON.parse(maskConfigSecrets(JSON.stringify(sealConfigSecrets(config, box))));
    expect(shown.api_key).toBe(MASKED_API_KEY);
    expect(shown.targets[0].api_key).toBe(MASKED_API_KEY);
    expect(shown.targets[1]).toEqual({ virtual_key: "vk-a-00000000" });
    const plain = JSON.stringify({ provider: "openai" });
    expect(maskConfigSecrets(plain)).toBe(plain);
  });
});
