import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import type { GatewayEnv } from "../app-env.ts";
import { GatewayError } from "../errors.ts";
import { handleError } from "../app-errors.ts";
import { googleErrors } from "./google-errors.ts";

/** An app whose every route fails with a refusal naming a field, Google's shape asked for on its paths only. */
function app(): Hono<GatewayEnv> {
  const served = new Hono<GatewayEnv>();
  served.onError(handleError);
  served.use("*", googleErrors({ onlyGooglePaths: true }));
  served.all("*", () => {
    throw new GatewayError("invalid_request", "Invalid field 'contents': too short", { param: "contents" });
  });
  return served;
}

describe("errors in Google's shape before any route", () => {
  it("reshapes the envelope on Google's paths, naming the field, and keeps the status", async () => {
    for (const path of ["/v1beta/models/x:predict", "/v1/models/gemini-2.5-flash:generateContent", "/v1/models/@openai/gpt-4o:streamGenerateContent"]) {
      const answer = await app().request(path, { method: "POST" });
      expect(answer.status, path).toBe(400);
      expect(await answer.json(), path).toEqual({
        error: { code: 400, message: "Invalid field 'contents': too short", status: "INVALID_ARGUMENT", details: [{ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ field: "contents", description: "Invalid field 'contents': too short" }] }] },
      });
    }
  });

  it("leaves OpenAI's paths, a fine-tuned model's included, in the gateway's envelope", async () => {
    for (const path of ["/v1/models/ft:gpt-4o-mini:acme:custom:AbCdEf", "/v1/chat/completions", "/v1/models/gpt-4o"]) {
      const answer = await app().request(path, { method: "POST" });
      expect((await answer.json()).error, path).toMatchObject({ type: "invalid_request_error", param: "contents" });
    }
  });
});
