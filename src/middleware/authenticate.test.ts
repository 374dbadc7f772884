import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { GatewayEnv } from "../app-env.ts";
import { handleError } from "../app-errors.ts";
import type { ApiKeyRole } from "../records/api-key.ts";
import { DEFAULT_ORGANISATION_ID, DEFAULT_WORKSPACE_ID, OPERATOR_KEY_ID } from "../control-plane/auth-context.ts";
import { requireScope, type GatewayScope } from "./authenticate.ts";

/** One route behind `requireScope`, called with the given key role (or none). */
async function statusFor(scope: GatewayScope, role: ApiKeyRole | null): Promise<{ status: number; code?: string }> {
  const app = new Hono<GatewayEnv>();
  app.onError(handleError);
  app.use("*", async (c, next) => {
    if (role) c.set("auth", { keyId: OPERATOR_KEY_ID, organisationId: DEFAULT_ORGANISATION_ID, workspaceId: DEFAULT_WORKSPACE_ID, role, organisationAdmin: false });
    await next();
  });
  app.get("/", requireScope(scope), (c) => c.json({ ok: true }, 200));
  const response = await app.request("/");
  const body = (await response.json()) as { error?: { code: string } };
  return { status: response.status, code: body.error?.code };
}

describe("requireScope", () => {
  it("admin: an admin key passes, a service key gets 403 insufficient_scope, no key 401", async () => {
    expect(await statusFor("admin", "admin")).toEqual({ status: 200 });
    expect(await statusFor("admin", "service")).toEqual({ status: 403, code: "insufficient_scope" });
    expect(await statusFor("admin", null)).toEqual({ status: 401, code: "missing_api_key" });
  });

  it("service: any key passes, no key 401", async () => {
    expect(await statusFor("service", "service")).toEqual({ status: 200 });
    expect(await statusFor("service", "admin")).toEqual({ status: 200 });
    expect(await statusFor("service", null)).toEqual({ status: 401, code: "missing_api_key" });
  });

  it("none: runs without a key", async () => {
    expect(await statusFor("none", null)).toEqual({ status: 200 });
  });
});
