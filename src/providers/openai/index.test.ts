import { describe, expect, it } from "vitest";
import { findProvider, isProviderHost, PROVIDERS } from "../catalogue.ts";
import { filledTemplate } from "./index.ts";

describe("an OpenAI-format provider whose base URL holds the account", () => {
  const cloudflare = findProvider("cloudflare-workers-ai")!;
  const account = "0123456789abcdef0123456789abcdef";

  it("fills the template from its credential field, and gives no base URL without it", () => {
    expect(cloudflare.baseUrl).toBeNull();
    expect(cloudflare.baseUrlFrom?.({ cloudflare_account_id: account })).toBe(`https://api.cloudflare.com/client/v4/accounts/${account}/ai/v1`);
    expect(cloudflare.baseUrlFrom?.({})).toBeNull();
    expect(cloudflare.credentialFields?.map((field) => field.header)).toEqual(["x-gateway-cloudflare-account-id"]);
    expect(cloudflare.credentialFields?.[0]?.pattern.test("not-an-account")).toBe(false);
  });

  it("trusts the template's host, and needs a path on a custom host", () => {
    expect(isProviderHost("api.cloudflare.com")).toBe(true);
    expect(isProviderHost("evil.cloudflare.com")).toBe(false);
    expect(cloudflare.customHostNeedsPath).toBe(true);
  });

  it("encodes what it fills in", () => {
    expect(filledTemplate("https://{a}.example.com/x/{b}", { a: "one", b: "t/w o" })).toBe("https://one.example.com/x/t%2Fw%20o");
  });
});

describe("every provider's base URL template", () => {
  it("is what its baseUrlFrom gives, for sample field values", () => {
    const samples: Record<string, string> = { cloudflare_account_id: "0123456789abcdef0123456789abcdef", azure_resource: "res-1", aws_region: "eu-west-1" };
    const templated = [...PROVIDERS.values()].filter((provider) => provider.baseUrlTemplate);
    expect(templated.map((provider) => provider.id).sort()).toEqual(["azure-ai-foundry", "azure-openai", "bedrock", "cloudflare-workers-ai"]);
    for (const provider of templated) {
      expect(provider.baseUrlFrom?.(samples), provider.id).toBe(filledTemplate(provider.baseUrlTemplate!, samples));
    }
  });
});
