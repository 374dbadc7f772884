import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LLMock } from "@copilotkit/aimock";
import { removeSqliteTestDatabase, sqliteTestUrl } from "./support/databases.ts";
import { startBunGateway, type BunGateway } from "./support/bun-gateway.ts";
import { startUpstream } from "./support/harness.ts";
import { startOtlpReceiver, type OtlpReceiver } from "./support/otlp-receiver.ts";

let upstream: LLMock;
let receiver: OtlpReceiver;
let gateway: BunGateway | null = null;
const databaseUrl = sqliteTestUrl();

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("bun telemetry", { content: "Traced on Bun.", usage: { prompt_tokens: 21, completion_tokens: 5, total_tokens: 26 } });
  receiver = await startOtlpReceiver();
});

afterAll(async () => {
  if (gateway && gateway.child.exitCode === null) await gateway.stop();
  await upstream?.stop();
  await receiver?.close();
  await removeSqliteTestDatabase(databaseUrl);
});

describe("telemetry under Bun (npm start, log worker)", () => {
  it("counts tokens the log worker reports back, and exports the spans when SIGTERM flushes", async () => {
    gateway = await startBunGateway(databaseUrl, {
      GATEWAY_METRICS: "public",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: "bun-gateway",
      GATEWAY_LOG_FLUSH_INTERVAL_MS: "20",
    });
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-gateway-api-key": gateway.adminKey,
        "x-gateway-provider": "openai",
        "x-gateway-custom-host": `${upstream.url}/v1`,
        authorization: "Bearer sk-upstream",
      },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "bun telemetry" }] }),
    });
    expect(response.status).toBe(200);
    const logId = response.headers.get("x-gateway-log-id");

    // Tokens are read by the log worker, off the request thread, and come back with its acknowledgement.
    const series = 'gateway_tokens_total{provider="openai",model="gpt-4o-mini",type="input"} ';
    let text = "";
    for (let attempt = 0; attempt < 100 && !text.includes(`${series}21`); attempt++) {
      text = await (await fetch(`${gateway.url}/metrics`)).text();
      if (!text.includes(`${series}21`)) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(text).toContain(`${series}21`);
    expect(text).toContain('gateway_tokens_total{provider="openai",model="gpt-4o-mini",type="output"} 5');

    // The batch span processor exports every 5 s, later than this: the spans arrive because SIGTERM flushes them.
    expect(await gateway.stop()).toBe(0);
    const spans = await receiver.waitFor((all) => all.some((span) => span.attributes["gateway.log_id"] === logId), 2000);
    const server = spans.find((span) => span.attributes["gateway.log_id"] === logId)!;
    expect(server.resource["service.name"]).toBe("bun-gateway");
    expect(server.attributes["gen_ai.usage.input_tokens"]).toBe(21);
    const client = spans.find((span) => span.parentSpanId === server.spanId);
    expect(client?.attributes["gen_ai.usage.output_tokens"]).toBe(5);
  });
});
