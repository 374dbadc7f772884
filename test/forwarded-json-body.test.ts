import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type RunningGateway } from "./support/harness.ts";
import { startRecordingUpstream, type RecordingUpstream } from "./support/recording-upstream.ts";

/**
 * A route that forwards its body as sent (a cancel) still sends a JSON body upstream whole and
 * unchanged, although the gateway read it first to hold it to GATEWAY_BODY_TIMEOUT_MS.
 */
let gateway: RunningGateway;
let upstream: RecordingUpstream;

beforeAll(async () => {
  upstream = await startRecordingUpstream(() => ({ id: "batch_1", object: "batch", status: "cancelling" }));
  gateway = await startGateway({ GATEWAY_TRUSTED_CUSTOM_HOSTS: ["127.0.0.1"] });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe("a forwarded JSON body", () => {
  it("reaches the upstream byte for byte, non-ASCII text included", async () => {
    const body = JSON.stringify({ reason: "no longer needed — déjà vu ✓", nested: { list: [1, 2, 3] } });
    const response = await fetch(`${gateway.url}/v1/batches/batch_1/cancel`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-gateway-api-key": gateway.adminKey,
        "x-gateway-provider": "openai",
        "x-gateway-custom-host": upstream.url,
        authorization: "Bearer sk-upstream",
      },
      body,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: "cancelling" });
    expect(upstream.received).toHaveLength(1);
    expect(upstream.received[0]!.path).toBe("/v1/batches/batch_1/cancel");
    expect(upstream.received[0]!.body.toString("utf8")).toBe(body);
    expect(upstream.received[0]!.headers["content-type"]).toBe("application/json");
  });
});
