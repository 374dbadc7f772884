/**
 * AWS Signature Version 4 over a final upstream request, with Smithy's signer (the one the AWS
 * SDKs use) and its pure-JS SHA-256, so it runs the same under Bun and Node.
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv.html
 */
import { Sha256 } from "@aws-crypto/sha256-js";
import { SignatureV4 } from "@smithy/signature-v4";
import type { UpstreamRequest } from "../provider.ts";

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface SigningScope {
  region: string;
  /** The signing name (`bedrock` for Bedrock Runtime). */
  service: string;
  /** Sign as of this time; now when absent (tests pin it). */
  date?: Date;
  /** Add `x-amz-content-sha256` (the SDKs do; the AWS test suite's vectors do not). */
  contentHash?: boolean;
  /** Encode the path once more before signing: every service but S3 (false for S3). */
  escapePath?: boolean;
}

/**
 * The request with `x-amz-date`, the session token when there is one, and `authorization`.
 * The `host` header is signed from the URL and left out of the result: fetch sets the same
 * value itself. The body must be text (or absent): SigV4 signs its hash.
 */
export async function signRequest(request: UpstreamRequest, credentials: AwsCredentials, scope: SigningScope): Promise<UpstreamRequest> {
  if (request.body !== null && typeof request.body !== "string") {
    throw new TypeError("SigV4 signs a text body; a streamed body cannot be hashed in advance.");
  }
  const url = new URL(request.url);
  const signer = new SignatureV4({
    credentials,
    region: scope.region,
    service: scope.service,
    sha256: Sha256,
    applyChecksum: scope.contentHash ?? true,
    uriEscapePath: scope.escapePath ?? true,
  });
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of url.searchParams) {
    const existing = query[name];
    query[name] = existing === undefined ? value : ([] as string[]).concat(existing, value);
  }
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      // As written in the URL (percent-encoded); the signer encodes it once more, as SigV4 asks
      // of every service but S3.
      path: url.pathname,
      query,
      headers: { ...request.headers, host: url.host },
      body: request.body ?? undefined,
    },
    { signingDate: scope.date ?? new Date() },
  );
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers)) {
    if (name.toLowerCase() !== "host") headers[name.toLowerCase()] = value;
  }
  return { ...request, headers };
}
