import { describe, expect, it } from "vitest";
import { requestTimeout } from "./request-timeout.ts";

describe("requestTimeout", () => {
  it("takes the header's decimal digits, up to one hour", () => {
    expect(requestTimeout("250", 600_000)).toEqual({ ok: true, value: 250 });
    expect(requestTimeout("3600000", 600_000)).toEqual({ ok: true, value: 3_600_000 });
  });

  it.each(["0x10", " 100 ", "1e3", "+5000", "-5", "1.5", "", "0", "3600001", "2147483648", "99999999999"])("refuses the header %j", (raw) => {
    const result = requestTimeout(raw, 600_000);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatchObject({ status: 400, param: "x-gateway-request-timeout" });
  });

  it("holds a fallback from a config stored before the bound to one hour", () => {
    expect(requestTimeout(undefined, 99_999_999_999)).toEqual({ ok: true, value: 3_600_000 });
    expect(requestTimeout(undefined, 1500)).toEqual({ ok: true, value: 1500 });
  });
});
