import { describe, expect, it } from "vitest";
import type { GatewayConfig } from "../generated/schemas.gen.ts";
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

  it("refuses a kept key sent anywhere it did not go before, naming the field that sends it there", () => {
    const A = "https://a.example/v1";
    const B = "https://b.example/v1";
    const refusedAt = (previous: object, next: object, param: string) =>
      expect(() => sealConfigSecrets(next as GatewayConfig, box, sealConfigSecrets(previous as GatewayConfig, box)), param).toThrow(
        expect.objectContaining({ status: 400, code: "invalid_request", param, message: expect.stringContaining("send the key again") }),
      );
    const keptFrom = (previous: object, next: object) => sealConfigSecrets(next as GatewayConfig, box, sealConfigSecrets(previous as GatewayConfig, box));

    const root = { provider: "openai", api_key: "sk-root", custom_host: A };
    refusedAt(root, { ...root, api_key: MASKED_API_KEY, custom_host: B }, "config.custom_host");
    refusedAt(root, { provider: "openai", api_key: MASKED_API_KEY }, "config.custom_host");
    refusedAt({ provider: "openai", api_key: "sk-root" }, { provider: "openai", api_key: MASKED_API_KEY, custom_host: A }, "config.custom_host");
    refusedAt({ provider: "openai", api_key: "sk-root" }, { provider: "groq", api_key: MASKED_API_KEY }, "config.provider");
    // A target without a key of its own sends the root's key to its host or provider.
    refusedAt(root, { ...root, api_key: MASKED_API_KEY, targets: [{ custom_host: B }] }, "config.targets.0.custom_host");
    refusedAt({ provider: "openai", api_key: "sk-root" }, { provider: "openai", api_key: MASKED_API_KEY, targets: [{ provider: "groq" }] }, "config.targets.0.provider");
    // A target's key goes to the target's host, else the root's.
    const target = { custom_host: A, targets: [{ provider: "openai", api_key: "sk-target" }] };
    refusedAt(target, { custom_host: B, targets: [{ provider: "openai", api_key: MASKED_API_KEY }] }, "config.custom_host");
    refusedAt(target, { custom_host: A, targets: [{ provider: "openai", api_key: MASKED_API_KEY, custom_host: B }] }, "config.targets.0.custom_host");
    refusedAt({ targets: [{ provider: "openai", api_key: "sk-target" }] }, { targets: [{ provider: "groq", api_key: MASKED_API_KEY }] }, "config.targets.0.provider");

    // The same URL after normalisation, a target that brings its own key, and the key sent again all pass.
    expect(keptFrom(root, { ...root, api_key: MASKED_API_KEY, custom_host: "HTTPS://A.example/v1/" }).custom_host).toBe("HTTPS://A.example/v1/");
    expect(keptFrom(root, { ...root, api_key: MASKED_API_KEY, targets: [{ custom_host: B, api_key: "sk-other" }] }).targets).toHaveLength(1);
    expect(keptFrom(target, { targets: [{ provider: "openai", api_key: MASKED_API_KEY, custom_host: A }] }).targets).toHaveLength(1);
    // Another provider behind the same custom host is no new destination.
    expect(keptFrom(target, { custom_host: A, targets: [{ provider: "groq", api_key: MASKED_API_KEY }] }).targets?.[0]?.provider).toBe("groq");
    expect(keptFrom({ provider: "openai", api_key: "sk-root" }, { provider: "openai", api_key: MASKED_API_KEY, custom_host: "https://api.openai.com/v1" }).provider).toBe("openai");
    expect(isSealedSecret(keptFrom(root, { ...root, api_key: "sk-new", custom_host: B }).api_key)).toBe(true);
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
