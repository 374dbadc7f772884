import { describe, expect, it } from "vitest";
import { signatureHeader, verifySignature } from "./webhook-signature.ts";

describe("webhook signatures", () => {
  const secret = "whsec_test-secret";
  const body = '{"id":"evt_1","type":"budget.threshold_crossed"}';

  it("signs the timestamp and the raw body with HMAC-SHA256, as the docs state", () => {
    // echo -n '1700000000.{"id":"evt_1","type":"budget.threshold_crossed"}' | openssl dgst -sha256 -hmac whsec_test-secret
    expect(signatureHeader(secret, body, 1_700_000_000)).toBe("t=1700000000,v1=19918d7e22855b987a1d2a4a718a556a6049140c6893b49f86085f9207f2b6be");
  });

  it("verifies a fresh signature and refuses another body, another secret, a stale or a future timestamp", () => {
    const header = signatureHeader(secret, body, 1_700_000_000);
    expect(verifySignature(secret, header, body, 1_700_000_010)).toBe(true);
    expect(verifySignature(secret, header, `${body} `, 1_700_000_010)).toBe(false);
    expect(verifySignature("whsec_other", header, body, 1_700_000_010)).toBe(false);
    expect(verifySignature(secret, header, body, 1_700_000_000 + 301)).toBe(false);
    expect(verifySignature(secret, header, body, 1_700_000_000 - 301)).toBe(false);
    expect(verifySignature(secret, "t=1700000000,v1=zz", body, 1_700_000_000)).toBe(false);
    expect(verifySignature(secret, null, body, 1_700_000_000)).toBe(false);
  });
});
