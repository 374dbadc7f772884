import { describe, expect, it } from "vitest";
import { createSecretBox } from "../crypto/secret-box.ts";
import { MASKED_API_KEY, maskConfigSecrets, openConfigSecrets, sealConfigSecrets } from "./config-secrets.ts";

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
    expect(sealed.provider).toBe("openai");
    expect(sealed.targets?.[1]).toEqual({ virtual_key: "vk-a-00000000" });
    expect(sealConfigSecrets(sealed, box)).toEqual(sealed);
    expect(openConfigSecrets(sealed, box)).toEqual(config);
  });

  it("masks api keys in the text routes show", () => {
    const shown = JSON.parse(maskConfigSecrets(JSON.stringify(sealConfigSecrets(config, box))));
    expect(shown.api_key).toBe(MASKED_API_KEY);
    expect(shown.targets[0].api_key).toBe(MASKED_API_KEY);
    const plain = JSON.stringify({ provider: "openai" });
    expect(maskConfigSecrets(plain)).toBe(plain);
  });
});
