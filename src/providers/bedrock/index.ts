import { GatewayError } from "../../errors.ts";
/**
 * AWS Bedrock through its Converse API: chat completions, translated both ways, streams
 * decoded from AWS's event stream, requests signed with SigV4 (or sent with a Bedrock API key);
 * and rerank, embeddings and image generation through InvokeModel (`rerank.ts`, `embeddings.ts`,
 * `images.ts`).
 * https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference.html
 */
import type { CredentialField, Provider } from "../provider.ts";
import { authorizeBedrock } from "./auth.ts";
import { converseRequest } from "./converse-request.ts";
import { chatCompletionFrom } from "./converse-response.ts";
import { converseStreamTranslator } from "./converse-stream.ts";
import { awsEventStreamProtocol } from "./event-stream.ts";
import { bedrockError } from "./upstream-error.ts";
import { bedrockRerank } from "./rerank.ts";
import { bedrockBatch } from "./batch.ts";
import { bedrockEmbeddings } from "./embeddings.ts";
import { bedrockImages } from "./images.ts";

/** A region as it appears in a host name (`us-east-1`, `us-gov-west-1`); checked before it becomes one. */
const REGION = /^[a-z]{2}(-gov)?-[a-z]+-\d$/;

export const BEDROCK_FIELDS: readonly CredentialField[] = [
  { name: "aws_access_key_id", header: "x-gateway-aws-access-key-id", secret: false, pattern: /^[A-Z0-9]{16,128}$/, description: "AWS access key id" },
  { name: "aws_secret_access_key", header: "x-gateway-aws-secret-access-key", secret: true, pattern: /^[A-Za-z0-9/+=]{16,128}$/, description: "AWS secret access key" },
  { name: "aws_session_token", header: "x-gateway-aws-session-token", secret: true, pattern: /^[A-Za-z0-9/+=]{16,8192}$/, description: "AWS session token" },
  { name: "aws_region", header: "x-gateway-aws-region", secret: false, pattern: REGION, description: "AWS region (such as us-east-1)" },
  { name: "aws_batch_bucket", header: "x-gateway-aws-batch-bucket", secret: false, pattern: /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, description: "S3 bucket the gateway writes batch input to and reads batch results from" },
  {
    name: "aws_batch_role_arn",
    header: "x-gateway-aws-batch-role-arn",
    secret: false,
    pattern: /^arn:aws(-[a-z]+)*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/,
    description: "IAM service role Bedrock runs batch jobs as (reads and writes the bucket)",
  },
];

export const bedrockProvider: Provider = {
  id: "bedrock",
  name: "AWS Bedrock",
  // The endpoint is the region's; without a region only a custom host gives one.
  baseUrl: null,
  docs: "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html",
  openaiFormat: false,
  credentialFields: BEDROCK_FIELDS,
  baseUrlFrom: (fields) => {
    const region = fields.aws_region;
    return region && REGION.test(region) ? `https://bedrock-runtime.${region}.amazonaws.com` : null;
  },
  baseUrlTemplate: "https://bedrock-runtime.{aws_region}.amazonaws.com",
  baseUrlHosts: /^bedrock-runtime\.[a-z0-9-]+\.amazonaws\.com$/,
  operations: {
    createChatCompletion: {
      request: (body, context) => {
        const converse = converseRequest(body, context);
        return converse instanceof GatewayError ? { error: converse } : converse;
      },
      response: (answer, { model }) => chatCompletionFrom(answer, model),
      stream: (clientBody, { model }) => converseStreamTranslator(clientBody, model),
    },
    createRerank: bedrockRerank,
    createEmbedding: bedrockEmbeddings,
    createImage: bedrockImages,
  },
  batch: bedrockBatch,
  streamProtocol: awsEventStreamProtocol,
  authorize: authorizeBedrock,
  error: (status, text, headers, answerHeaders) => bedrockError(status, text, headers, answerHeaders?.get("x-amzn-errortype") ?? null),
};
