import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewayError } from "../../errors.ts";
import { startGoogleTokenServer, type GoogleTokenServer } from "../../../test/support/google-token-server.ts";
import type { Credentials, UpstreamRequest } from "../provider.ts";
import { vertexAuthorizer } from "./auth.ts";
import { CLOUD_PLATFORM_SCOPE } from "./mint-token.ts";
import { createTokenCache, REFRESH_MARGIN_MS } from "./token-cache.ts";

let tokens: GoogleTokenServer;
beforeAll(async () => {
  tokens = await startGoogleTokenServer();
});
afterAll(async () => {
  await tokens?.close();
});

const URL_ON_LOOPBACK = "http://127.0.0.1:1/v1/projects/p-123456/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent";

function request(url = URL_ON_LOOPBACK): UpstreamRequest {
  return { method: "POST", url, headers: { "content-type": "application/json" }, body: "{}" };
}

function credentials(apiKey: string | null): Credentials {
  return { style: "bearer", apiKey, organization: null, project: null, fields: {} };
}

async function bearerOf(result: ReturnType<ReturnType<typeof vertexAuthorizer>>): Promise<string> {
  const authorized = await result;
  if (authorized instanceof GatewayError) throw authorized;
  return authorized.headers.authorization ?? "";
}

describe("Vertex AI authorisation", () => {
  it("sends an access token as it is", async () => {
    const authorize = vertexAuthorizer(createTokenCache());
    expect(await bearerOf(authorize(request(), credentials("ya29.given-token")))).toBe("Bearer ya29.given-token");
  });

  it("mints a token with a signed assertion for the cloud-platform scope, and reuses it", async () => {
    const account = tokens.account("minter@test-project-123.iam.gserviceaccount.com");
    tokens.answer({ accessToken: "ya29.minted-once", expiresIn: 3600 });
    const before = tokens.grants.length;
    const authorize = vertexAuthorizer(createTokenCache());
    const [first, second] = await Promise.all([bearerOf(authorize(request(), credentials(account.keyJson))), bearerOf(authorize(request(), credentials(account.keyJson)))]);
    expect(first).toBe("Bearer ya29.minted-once");
    expect(second).toBe("Bearer ya29.minted-once");
    expect(await bearerOf(authorize(request(), credentials(account.keyJson)))).toBe("Bearer ya29.minted-once");
    // Two concurrent requests and a later one: one exchange.
    expect(tokens.grants.length - before).toBe(1);
    const grant = tokens.grants.at(-1)!;
    expect(grant.header).toEqual({ alg: "RS256" });
    expect(grant.claims).toMatchObject({ iss: account.email, scope: CLOUD_PLATFORM_SCOPE, aud: "https://oauth2.googleapis.com/token" });
    expect(Number(grant.claims.exp) - Number(grant.claims.iat)).toBe(3600);
  });

  it("mints a new token once the cached one is within the refresh margin of its expiry", async () => {
    const account = tokens.account("refresher@test-project-123.iam.gserviceaccount.com");
    let offset = 0;
    const cache = createTokenCache({ now: () => Date.now() + offset });
    const authorize = vertexAuthorizer(cache);
    tokens.answer({ accessToken: "ya29.hour-one", expiresIn: 3600 });
    expect(await bearerOf(authorize(request(), credentials(account.keyJson)))).toBe("Bearer ya29.hour-one");
    tokens.answer({ accessToken: "ya29.hour-two", expiresIn: 3600 });
    offset = 3600_000 - REFRESH_MARGIN_MS - 60_000;
    expect(await bearerOf(authorize(request(), credentials(account.keyJson)))).toBe("Bearer ya29.hour-one");
    offset = 3600_000 - REFRESH_MARGIN_MS + 1_000;
    expect(await bearerOf(authorize(request(), credentials(account.keyJson)))).toBe("Bearer ya29.hour-two");
    expect(cache.size).toBe(1);
  });

  it("keeps tokens per service account, within its bound", async () => {
    const cache = createTokenCache({ maxEntries: 2 });
    const authorize = vertexAuthorizer(cache);
    const accounts = ["a-one", "a-two", "a-three"].map((name) => tokens.account(`${name}@test-project-123.iam.gserviceaccount.com`));
    const seen: string[] = [];
    for (const [index, account] of accounts.entries()) {
      tokens.answer({ accessToken: `ya29.account-${index}`, expiresIn: 3600 });
      seen.push(await bearerOf(authorize(request(), credentials(account.keyJson))));
    }
    expect(seen).toEqual(["Bearer ya29.account-0", "Bearer ya29.account-1", "Bearer ya29.account-2"]);
    expect(cache.size).toBe(2);
    // The oldest left: it mints again; the newest is still cached.
    tokens.answer({ accessToken: "ya29.again", expiresIn: 3600 });
    expect(await bearerOf(authorize(request(), credentials(accounts[2]!.keyJson)))).toBe("Bearer ya29.account-2");
    expect(await bearerOf(authorize(request(), credentials(accounts[0]!.keyJson)))).toBe("Bearer ya29.again");
  });

  it("answers 401 when Google refuses the key, keeps no failure, and never shows the key", async () => {
    const account = tokens.account("refused@test-project-123.iam.gserviceaccount.com");
    const authorize = vertexAuthorizer(createTokenCache());
    tokens.answer({ status: 400, error: "invalid_grant" });
    const refused = await authorize(request(), credentials(account.keyJson));
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused).toMatchObject({ code: "invalid_api_key", status: 401 });
    expect((refused as GatewayError).message).toContain("invalid_grant");
    expect((refused as GatewayError).message).not.toContain("PRIVATE KEY");
    tokens.answer({ accessToken: "ya29.after-refusal", expiresIn: 3600 });
    expect(await bearerOf(authorize(request(), credentials(account.keyJson)))).toBe("Bearer ya29.after-refusal");
  });

  it("answers 502 when the token endpoint cannot be reached", async () => {
    const account = tokens.account("unreachable@test-project-123.iam.gserviceaccount.com");
    const closedPort = JSON.stringify({ ...JSON.parse(account.keyJson), token_uri: "http://127.0.0.1:1/token" });
    const result = await vertexAuthorizer(createTokenCache())(request(), credentials(closedPort));
    expect(result).toMatchObject({ code: "upstream_unreachable", status: 502 });
  }, 30_000);

  it("refuses, before any exchange, a token_uri off Google and off the upstream's host", async () => {
    const account = tokens.account("elsewhere@test-project-123.iam.gserviceaccount.com");
    const before = tokens.grants.length;
    const result = await vertexAuthorizer(createTokenCache())(request("https://us-central1-aiplatform.googleapis.com/v1/x"), credentials(account.keyJson));
    expect(result).toMatchObject({ code: "invalid_request", status: 400, param: "authorization" });
    expect((result as GatewayError).message).toContain("token_uri");
    expect(tokens.grants.length).toBe(before);
  });

  it("refuses a key that is not a service-account JSON key, naming what is wrong but not the key", async () => {
    const authorize = vertexAuthorizer(createTokenCache());
    expect(await authorize(request(), credentials('{"type": "service_account", oops'))).toMatchObject({ code: "invalid_request", param: "authorization" });
    const userCredentials = await authorize(request(), credentials(JSON.stringify({ type: "authorized_user", client_id: "x", refresh_token: "1//secret-refresh" })));
    expect(userCredentials).toMatchObject({ code: "invalid_request" });
    expect((userCredentials as GatewayError).message).toContain("type");
    expect((userCredentials as GatewayError).message).not.toContain("secret-refresh");
    expect(await authorize(request(), credentials(null))).toMatchObject({ code: "invalid_request", param: "authorization" });
  });
});
