/**
 * Bedrock's two ways to authorise (pure apart from the signing clock): SigV4 with an access
 * key pair (and a session token for temporary credentials) when the fields hold one, else the
 * key as a Bedrock API key (`Authorization: Bearer`).
 * https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys-use.html
 */
import { GatewayError } from "../../errors.ts";
import type { Credentials, UpstreamRequest } from "../provider.ts";
import { signRequest } from "./sigv4.ts";

/** SigV4's signing name for Bedrock Runtime (its endpoint prefix is `bedrock-runtime`). */
const SIGNING_NAME = "bedrock";

export async function authorizeBedrock(request: UpstreamRequest, credentials: Credentials): Promise<UpstreamRequest | GatewayError> {
  const { fields } = credentials;
  const streams = new URL(request.url).pathname.endsWith("/converse-stream");
  // Converse answers JSON, ConverseStream the event stream: ask for what comes.
  const headers = { ...request.headers, accept: streams ? "application/vnd.amazon.eventstream" : "application/json" };
  const accessKeyId = fields.aws_access_key_id;
  const secretAccessKey = fields.aws_secret_access_key;
  if (accessKeyId && secretAccessKey) {
    const region = fields.aws_region;
    if (!region) {
      return new GatewayError("invalid_request", "AWS Bedrock signs each request for a region: send x-gateway-aws-region (or store aws_region in the virtual key).", {
        param: "x-gateway-aws-region",
      });
    }
    const sessionToken = fields.aws_session_token;
    return signRequest({ ...request, headers }, { accessKeyId, secretAccessKey, ...(sessionToken && { sessionToken }) }, { region, service: SIGNING_NAME });
  }
  if (accessKeyId || secretAccessKey) {
    const missing = accessKeyId ? "x-gateway-aws-secret-access-key" : "x-gateway-aws-access-key-id";
    return new GatewayError("invalid_request", `AWS Bedrock needs both the access key id and the secret access key to sign: ${missing} is missing.`, { param: missing });
  }
  if (credentials.apiKey) return { ...request, headers: { ...headers, authorization: `Bearer ${credentials.apiKey}` } };
  return new GatewayError(
    "invalid_request",
    "AWS Bedrock needs credentials: x-gateway-aws-access-key-id, x-gateway-aws-secret-access-key and x-gateway-aws-region (SigV4), or a Bedrock API key as the bearer key.",
    { param: "x-gateway-aws-access-key-id" },
  );
}
