import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { GatewayEnv } from "../app-env.ts";
import { handleError } from "../app-errors.ts";
import { requireMediaType } from "./require-media-type.ts";

/** A route behind `requireMediaType` whose handler reports whether the body was still unread. */
async function answer(contentType: string | null): Promise<{ status: number; param?: string; unread?: boolean }> {
  const app = new Hono<GatewayEnv>();
  app.onError(handleError);
  app.post("/", requireMediaType(["multipart/form-data"]), (c) => c.json({ unread: !c.req.raw.bodyUsed }, 200));
  const headers: Record<string, string> = contentType === null ? {} : { "content-type": contentType };
  const response = await app.request("/", { method: "POST", headers, body: "--x\r\n\r\nbody\r\n--x--\r\n" });
  const body = (await response.json()) as { unread?: boolean; error?: { param: string } };
  return { status: response.status, param: body.error?.param, unread: body.unread };
}

describe("requireMediaType", () => {
  it("passes a listed media type with its boundary, the body unread", async () => {
    expect(await answer("multipart/form-data; boundary=x")).toEqual({ status: 200, unread: true });
    expect(await answer("Multipart/Form-Data;boundary=----formdata-undici-0123")).toEqual({ status: 200, unread: true });
    expect(await answer('multipart/form-data; boundary="a b"')).toEqual({ status: 200, unread: true });
  });

  it("refuses another type, a multipart type without its boundary, or none, with 400 naming content-type", async () => {
    const empty = ["multipart/form-data; boundary=", 'multipart/form-data; boundary=""', `multipart/form-data; boundary=${"b".repeat(71)}`];
    for (const type of ["application/json", "multipart/form-data", "multipart/form-dataX; boundary=x", "text/plain; boundary=x", null, ...empty]) {
      expect(await answer(type), String(type)).toEqual({ status: 400, param: "content-type" });
    }
  });

  it("needs a media type when created", () => {
    expect(() => requireMediaType([])).toThrow("at least one");
  });
});
