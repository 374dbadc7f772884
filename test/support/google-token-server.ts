import { createPublicKey, generateKeyPairSync, verify } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A service account of the test's own: its JSON key (token_uri on the loopback server) and the public key to check signatures. */
export interface TestServiceAccount {
  email: string;
  keyJson: string;
}

/** One token request as the server understood it: the assertion's claims, after its RS256 signature was verified. */
export interface TokenGrant {
  grantType: string | null;
  claims: Record<string, unknown>;
  header: Record<string, unknown>;
}

export interface GoogleTokenServer {
  tokenUri: string;
  grants: TokenGrant[];
  /** Makes a service account whose key points at this server. */
  account(email: string): TestServiceAccount;
  /** The access token the next grant answers, and its lifetime in seconds. */
  answer(next: { accessToken: string; expiresIn: number } | { status: number; error: string }): void;
  close(): Promise<void>;
}

const base64url = (text: string): Buffer => Buffer.from(text, "base64url");

/**
 * Google's OAuth token endpoint for tests, on loopback: it accepts only a JWT-bearer grant
 * whose assertion is signed (RS256) by a key of an account it made, and answers what the test set.
 */
export async function startGoogleTokenServer(): Promise<GoogleTokenServer> {
  const publicKeys = new Map<string, ReturnType<typeof createPublicKey>>();
  const grants: TokenGrant[] = [];
  let next: { accessToken: string; expiresIn: number } | { status: number; error: string } = { accessToken: "ya29.first", expiresIn: 3600 };
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const form = new URLSearchParams(body);
      const [header = "", claims = "", signature = ""] = (form.get("assertion") ?? "").split(".");
      const parsedClaims = JSON.parse(base64url(claims).toString() || "{}") as Record<string, unknown>;
      const key = publicKeys.get(String(parsedClaims.iss));
      const signed = key !== undefined && verify("RSA-SHA256", Buffer.from(`${header}.${claims}`), key, base64url(signature));
      if (!signed || form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") {
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: "invalid_grant", error_description: "Invalid JWT Signature." }));
        return;
      }
      grants.push({ grantType: form.get("grant_type"), claims: parsedClaims, header: JSON.parse(base64url(header).toString()) as Record<string, unknown> });
      if ("status" in next) {
        res.writeHead(next.status, { "content-type": "application/json" }).end(JSON.stringify({ error: next.error, error_description: "refused by the test" }));
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ access_token: next.accessToken, expires_in: next.expiresIn, token_type: "Bearer" }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const tokenUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  return {
    tokenUri,
    grants,
    account(email) {
      const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
      publicKeys.set(email, publicKey);
      const keyJson = JSON.stringify({
        type: "service_account",
        project_id: "test-project-123",
        private_key_id: `kid-${email.split("@")[0]}`,
        private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
        client_email: email,
        token_uri: tokenUri,
      });
      return { email, keyJson };
    },
    answer(value) {
      next = value;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
