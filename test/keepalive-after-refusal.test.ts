/**
 * A proxied request refused before the upstream read its body (here: no provider) must leave
 * its keep-alive connection usable: found by test/fuzz-routes.test.ts, where the next request
 * on the connection failed with "socket hang up".
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { Agent, request } from "node:http";
import { startGateway, type RunningGateway } from "./support/harness.ts";

let gateway: RunningGateway;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

beforeAll(async () => {
  gateway = await startGateway();
});

afterAll(async () => {
  agent.destroy();
  await gateway?.close();
});

function send(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; text: string; socket: unknown }> {
  const { hostname, port } = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, method, path, headers, agent }, (res) => {
      let text = "";
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text, socket: req.socket }));
    });
    req.setTimeout(5_000, () => req.destroy(new Error("timed out")));
    req.on("error", reject);
    req.end(body);
  });
}

it.each(["/v1/batches/batch_1/cancel", "/v1/uploads/upload_1/cancel", "/v1/fine_tuning/jobs/ft_1/pause"])(
  "POST %s with a 3 MB body and no provider: 400, then the same connection serves the next request",
  async (path) => {
    const refused = await send("POST", path, { "x-gateway-api-key": gateway.adminKey, "content-type": "application/json" }, Buffer.alloc(3_000_000, 0x61));
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text).error.message).toContain("No provider");
    const next = await send("GET", "/health", {});
    expect(next.status).toBe(200);
    // The same connection: the refusal did not cost the client its keep-alive socket.
    expect(next.socket).toBe(refused.socket);
  },
);
