import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ECHO_ENCODING_NAMES, ECHO_ENCODINGS, encodedForms, headerSecret } from "../../test/support/echo-encodings.ts";
import { credentialScrubber, REDACTED, scrubSecrets, sentSecrets } from "./sent-credentials.ts";

describe("sentSecrets", () => {
  it("finds bearer tokens, key headers and query keys, not ordinary headers", () => {
    const secrets = sentSecrets({
      url: "https://generativelanguage.googleapis.com/v1beta/models/x:generateContent?key=AIzaSy-query-key-0001&alt=sse",
      headers: { Authorization: "Bearer sk-bearer-token-0001", "x-api-key": "sk-ant-header-0001", "api-key": "azure-key-00000001", "content-type": "application/json", "openai-organization": "org-not-a-secret" },
    });
    expect(secrets).toEqual(expect.arrayContaining(["Bearer sk-bearer-token-0001", "sk-bearer-token-0001", "sk-ant-header-0001", "azure-key-00000001", "AIzaSy-query-key-0001"]));
    expect(secrets.join(" ")).not.toContain("org-not-a-secret");
    expect(secrets.join(" ")).not.toContain("application/json");
  });

  it("takes the access key id and signature of SigV4, and both halves of Basic auth", () => {
    const sigv4 = "AWS4-HMAC-SHA256 Credential=AKIAEXAMPLEKEYID0001/20250101/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=" + "ab".repeat(32);
    const secrets = sentSecrets({ url: "https://x/", headers: { authorization: sigv4, "x-amz-security-token": "session-token-000001" } });
    expect(secrets).toEqual(expect.arrayContaining(["AKIAEXAMPLEKEYID0001", "ab".repeat(32), "session-token-000001"]));
    expect(secrets).not.toContain("aws4_request");
    const basic = sentSecrets({ url: "https://x/", headers: { authorization: `Basic ${Buffer.from("user-name-01:pass-word-01").toString("base64")}` } });
    expect(basic).toEqual(expect.arrayContaining(["user-name-01", "pass-word-01"]));
  });
});

describe("scrubbing", () => {
  it("replaces every occurrence, URL-encoded ones too, and leaves other text alone", () => {
    const scrub = credentialScrubber({ url: "https://x/?key=a+b/c=d-key-0001", headers: { authorization: "Bearer sk-echo-0123456789" } });
    const text = `{"error":{"message":"bad key sk-echo-0123456789 (Authorization: Bearer sk-echo-0123456789) at /?key=${encodeURIComponent("a+b/c=d-key-0001")}"}}`;
    const scrubbed = scrub(text);
    expect(scrubbed).not.toContain("sk-echo-0123456789");
    expect(scrubbed).not.toContain(encodeURIComponent("a+b/c=d-key-0001"));
    expect(scrubbed).toContain(REDACTED);
    expect(JSON.parse(scrubbed).error.message).toMatch(/^bad key \[redacted\]/);
    expect(scrub("nothing to see")).toBe("nothing to see");
  });

  it("ignores pieces too short to be secrets", () => {
    expect(scrubSecrets("the key is short", sentSecrets({ url: "https://x/?key=short", headers: { "x-api-key": "abc" } }))).toBe("the key is short");
  });

  it("scrubs a JSON text whose strings hold a key only once their escapes are read", () => {
    const scrub = credentialScrubber({ url: "https://api.example.com/v1", headers: { authorization: "Bearer sk-live/escaped-0123456789" } });
    const escaped = '{"error":{"message":"bad key sk-live\\/escaped-\\u0030123456789"}}';
    const scrubbed = scrub(escaped);
    expect(JSON.parse(scrubbed)).toEqual({ error: { message: "bad key [redacted]" } });
    expect(scrub('{"note":"a\\/b"}')).toBe('{"note":"a\\/b"}');
  });
});

describe("scrubbing an echoed credential in every encoding (property)", () => {
  const where = [
    (echo: string) => `Unauthorized: ${echo}`,
    (echo: string) => `{"error":{"message":"Incorrect API key provided: ${echo}","code":"invalid_api_key"}}`,
    (echo: string) => `{"error":{"message":"{\\"request\\":\\"${echo}\\"}"}}`,
    (echo: string) => `event: error\ndata: {"type":"error","error":{"message":"${echo} and again ${echo}"}}\n\n`,
  ];

  it("leaves no form of a header key from the printable ASCII range", () => {
    fc.assert(
      fc.property(headerSecret, fc.constantFrom(...ECHO_ENCODING_NAMES), fc.constantFrom(...where), (secret, encoding, around) => {
        const sent = `Bearer ${secret}`;
        const scrub = credentialScrubber({ url: "https://upstream.example/v1/chat/completions", headers: { authorization: sent } });
        const scrubbed = scrub(around(ECHO_ENCODINGS[encoding](sent)));
        for (const form of [...encodedForms(secret), ...encodedForms(sent)]) expect(scrubbed).not.toContain(form);
        expect(scrubbed).toContain(REDACTED);
      }),
      { numRuns: 400 },
    );
  });

  it("leaves no form of a query key from the whole printable range of Unicode", () => {
    const printable = fc.string({ unit: "grapheme", minLength: 8, maxLength: 30 }).filter((text) => !/[\p{Cc}\p{Cs}]/u.test(text) && text.length >= 8);
    fc.assert(
      fc.property(printable, fc.constantFrom(...ECHO_ENCODING_NAMES), (secret, encoding) => {
        const scrub = credentialScrubber({ url: `https://upstream.example/v1beta/models/x:generate?key=${encodeURIComponent(secret)}`, headers: {} });
        const scrubbed = scrub(`{"error":{"message":"bad key ${ECHO_ENCODINGS[encoding](secret)}"}}`);
        for (const form of encodedForms(secret)) expect(scrubbed).not.toContain(form);
        expect(scrubbed).toContain(REDACTED);
      }),
      { numRuns: 300 },
    );
  });

  it("keeps the JSON it scrubs valid, and a text without a secret as it was", () => {
    const scrub = credentialScrubber({ url: "https://x/", headers: { authorization: 'Bearer sk-VKQ"ESC\\ape-999' } });
    const body = JSON.stringify({ error: { message: `echo ${JSON.stringify({ authorization: 'Bearer sk-VKQ"ESC\\ape-999' })}` } });
    const scrubbed = scrub(body);
    expect(JSON.parse(scrubbed).error.message).toBe('echo {"authorization":"[redacted]"}');
    const unrelated = '{"note":"a\\/b \\u0041 %41 \\\\"}';
    expect(scrub(unrelated)).toBe(unrelated);
  });

  it("stays linear on hostile text: a megabyte of backslashes and percent signs", () => {
    const scrub = credentialScrubber({ url: "https://x/", headers: { authorization: "Bearer sk-hostile-0123456789" } });
    // CPU time, not wall time: a loaded machine stretches the second, not the first.
    const started = process.cpuUsage();
    scrub("\\".repeat(500_000) + "%".repeat(500_000) + "\\u00".repeat(100_000));
    const { user, system } = process.cpuUsage(started);
    expect((user + system) / 1_000).toBeLessThan(2_000);
  });
});
