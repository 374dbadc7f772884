import { describe, expect, it } from "vitest";
import { signRequest } from "./sigv4.ts";

// The AWS Signature Version 4 test suite's credentials and time (aws-sig-v4-test-suite, also
// used by Smithy's and botocore's own tests).
const credentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };
const date = new Date("2015-08-30T12:36:00Z");

describe("SigV4 signing", () => {
  it("matches the AWS test suite's get-vanilla vector", async () => {
    const signed = await signRequest({ method: "GET", url: "https://example.amazonaws.com/", headers: {}, body: null }, credentials, {
      region: "us-east-1",
      service: "service",
      date,
      contentHash: false,
    });
    expect(signed.headers["x-amz-date"]).toBe("20150830T123600Z");
    expect(signed.headers.authorization).toBe(
      "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31",
    );
    // fetch sets the host from the URL; the signed value is the same.
    expect(signed.headers.host).toBeUndefined();
  });

  it("matches the AWS test suite's post-x-www-form-urlencoded vector (a signed body)", async () => {
    const signed = await signRequest(
      { method: "POST", url: "https://example.amazonaws.com/", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "Param1=value1" },
      credentials,
      { region: "us-east-1", service: "service", date, contentHash: false },
    );
    expect(signed.headers.authorization).toBe(
      "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a",
    );
  });

  it("signs the session token and encodes a model id's colon twice in the canonical path", async () => {
    const url = "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse";
    const base = { method: "POST", url, headers: { "content-type": "application/json" }, body: "{}" };
    const withToken = await signRequest(base, { ...credentials, sessionToken: "token-1" }, { region: "us-east-1", service: "bedrock", date });
    expect(withToken.headers["x-amz-security-token"]).toBe("token-1");
    expect(withToken.headers.authorization).toMatch(/SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token,/);
    expect(withToken.headers["x-amz-content-sha256"]).toBe("44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
    // A path written once-encoded signs differently from one written raw: the signer encodes what it is given.
    const raw = await signRequest({ ...base, url: url.replace("%3A", ":") }, credentials, { region: "us-east-1", service: "bedrock", date });
    const encoded = await signRequest(base, credentials, { region: "us-east-1", service: "bedrock", date });
    expect(raw.headers.authorization).not.toBe(encoded.headers.authorization);
  });
});
