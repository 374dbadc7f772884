import { describe, expect, it } from "vitest";
import { upstreamAuthorization } from "./upstream-key.ts";

describe("the upstream key of an Anthropic client", () => {
  it("prefers Authorization, else sends x-api-key as a bearer key", () => {
    expect(upstreamAuthorization({ authorization: "Bearer sk-a", apiKey: "sk-b", gatewayKey: "k" })).toEqual({ ok: true, value: "Bearer sk-a" });
    expect(upstreamAuthorization({ apiKey: "sk-b", gatewayKey: "k" })).toEqual({ ok: true, value: "Bearer sk-b" });
    expect(upstreamAuthorization({ gatewayKey: "k" })).toEqual({ ok: true, value: undefined });
  });

  it("refuses a gateway key in either header", () => {
    const inBearer = upstreamAuthorization({ authorization: "Bearer my-gateway-key", gatewayKey: "my-gateway-key" });
    expect(inBearer.ok || inBearer.error).toMatchObject({ status: 400, param: "Authorization" });
    const issued = upstreamAuthorization({ apiKey: "gw_abc", gatewayKey: "other" });
    expect(issued.ok || issued.error).toMatchObject({ status: 400, param: "x-api-key" });
  });

  it("names the format's own key header: a Google client's x-goog-api-key", () => {
    expect(upstreamAuthorization({ apiKey: "AIza-b", gatewayKey: "k", apiKeyHeader: "x-goog-api-key" })).toEqual({ ok: true, value: "Bearer AIza-b" });
    const refused = upstreamAuthorization({ apiKey: "k", gatewayKey: "k", apiKeyHeader: "x-goog-api-key" });
    expect(refused.ok || refused.error).toMatchObject({ status: 400, param: "x-goog-api-key", message: expect.stringContaining("x-goog-api-key holds a gateway key") });
  });
});
