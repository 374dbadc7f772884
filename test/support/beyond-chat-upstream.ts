/**
 * A local stand-in for the provider endpoints beyond chat that aimock does not speak (or speaks
 * without the usage the real APIs report), answering in each one's documented shape:
 * - Gemini API `:embedContent` and `:batchEmbedContents` (under `/v1beta`);
 * - Vertex AI `:predict` for text embedding models (`predictions[].embeddings.{values,statistics}`)
 *   and Imagen (`predictions[].bytesBase64Encoded`), under `/v1/projects/…/publishers/google`;
 * - Bedrock InvokeModel (`/model/{model}/invoke`) for Titan Text Embeddings, Cohere Embed, Nova
 *   Canvas and Titan Image Generator;
 * - Cohere's `POST /v2/embed`, with `meta.billed_units`;
 * - OpenAI's `POST /v1/embeddings` and Azure OpenAI's per deployment, with the usage (aimock's is zero).
 * Each checks the request as its API would and answers 400 in its own error shape when it is not.
 * Vectors are made from the text (exact in float32, so base64 answers can be checked), one token
 * per word.
 * https://ai.google.dev/api/embeddings
 * https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/text-embeddings-api
 * https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/imagen-api
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-embed-text.html
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-embed.html
 * https://docs.aws.amazon.com/nova/latest/userguide/image-gen-req-resp-structure.html
 * https://docs.cohere.com/reference/embed
 */
import { startRecordingUpstream, type Answer, type RecordingUpstream } from "./recording-upstream.ts";

type Body = Record<string, unknown>;

/** A one-pixel PNG, as the image endpoints answer it. */
export const PIXEL_PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/** The vector the stand-in gives a text: its length, word count, then 1/2 to 1/256 over and over, `size` values long. */
export function vectorOf(text: string, size = 4): number[] {
  const head = [text.length, wordsOf(text)];
  return Array.from({ length: size }, (_, index) => head[index] ?? 1 / 2 ** (((index - 2) % 8) + 1));
}

export function wordsOf(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => ({ status, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
const isObject = (value: unknown): value is Body => typeof value === "object" && value !== null && !Array.isArray(value);
const strings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === "string");
const googleError = (message: string): Answer => json(400, { error: { code: 400, message, status: "INVALID_ARGUMENT" } });
const awsError = (message: string): Answer => json(400, { message }, { "x-amzn-errortype": "ValidationException" });

function contentText(content: unknown): string | null {
  const parts = isObject(content) && Array.isArray(content.parts) ? content.parts : null;
  const text = parts?.[0];
  return isObject(text) && typeof text.text === "string" ? text.text : null;
}

function geminiEmbed(model: string, action: string, body: Body): Answer {
  const one = (request: unknown): { values: number[] } | null => {
    const text = isObject(request) ? contentText(request.content) : null;
    if (text === null) return null;
    return { values: vectorOf(text, typeof (request as Body).outputDimensionality === "number" ? ((request as Body).outputDimensionality as number) : 4) };
  };
  if (action === "embedContent") {
    const embedding = one(body);
    return embedding ? json(200, { embedding }) : googleError("* EmbedContentRequest.content: contents.parts must not be empty.");
  }
  const requests = Array.isArray(body.requests) ? body.requests : [];
  if (requests.length === 0) return googleError("* BatchEmbedContentsRequest.requests: must not be empty.");
  const embeddings = requests.map((request) => (isObject(request) && request.model === `models/${model}` ? one(request) : null));
  if (embeddings.some((embedding) => embedding === null)) return googleError("* BatchEmbedContentsRequest.requests: each request needs the path's model and a content.");
  return json(200, { embeddings });
}

function vertexPredict(model: string, body: Body): Answer {
  const instances = Array.isArray(body.instances) ? body.instances.filter(isObject) : [];
  if (instances.length === 0) return googleError("Instances must not be empty.");
  const parameters = isObject(body.parameters) ? body.parameters : {};
  if (model.startsWith("imagen-")) {
    if (typeof instances[0]!.prompt !== "string") return googleError("Prompt is required.");
    const count = typeof parameters.sampleCount === "number" ? parameters.sampleCount : 4;
    if (parameters.aspectRatio !== undefined && !["1:1", "3:4", "4:3", "9:16", "16:9"].includes(parameters.aspectRatio as string)) return googleError("Unsupported aspect ratio.");
    return json(200, { predictions: Array.from({ length: count }, () => ({ bytesBase64Encoded: PIXEL_PNG_BASE64, mimeType: "image/png" })) });
  }
  if (!instances.every((instance) => typeof instance.content === "string")) return googleError("Each instance needs content.");
  const size = typeof parameters.outputDimensionality === "number" ? parameters.outputDimensionality : 4;
  const predictions = instances.map((instance) => ({
    embeddings: { values: vectorOf(instance.content as string, size), statistics: { token_count: wordsOf(instance.content as string), truncated: false } },
  }));
  return json(200, { predictions, metadata: { billableCharacterCount: instances.reduce((sum, instance) => sum + (instance.content as string).length, 0) } });
}

function bedrockInvoke(model: string, body: Body): Answer {
  if (model.startsWith("amazon.titan-embed-text-")) {
    if (typeof body.inputText !== "string" || Object.keys(body).some((key) => !["inputText", "dimensions", "normalize", "embeddingTypes"].includes(key))) {
      return awsError("Malformed input request, please reformat your input and try again.");
    }
    const vector = vectorOf(body.inputText, typeof body.dimensions === "number" ? body.dimensions : 4);
    return json(200, { embedding: vector, inputTextTokenCount: wordsOf(body.inputText), embeddingsByType: { float: vector } });
  }
  if (model.startsWith("cohere.embed-")) {
    if (!strings(body.texts) || typeof body.input_type !== "string" || "model" in body) return awsError("Malformed input request, please reformat your input and try again.");
    const vectors = body.texts.map((text) => vectorOf(text));
    const byType = Array.isArray(body.embedding_types);
    return json(200, { id: "bedrock-embed-1", texts: body.texts, embeddings: byType ? { float: vectors } : vectors, response_type: byType ? "embeddings_by_type" : "embeddings_floats" });
  }
  if (model.startsWith("amazon.nova-canvas-") || model.startsWith("amazon.titan-image-generator-")) {
    const params = isObject(body.textToImageParams) ? body.textToImageParams : {};
    const config = isObject(body.imageGenerationConfig) ? body.imageGenerationConfig : {};
    if (body.taskType !== "TEXT_IMAGE" || typeof params.text !== "string") return awsError("Malformed input request: taskType TEXT_IMAGE with textToImageParams.text is required.");
    const count = typeof config.numberOfImages === "number" ? config.numberOfImages : 1;
    return json(200, { images: Array.from({ length: count }, () => PIXEL_PNG_BASE64), error: null });
  }
  return awsError(`The provided model identifier is invalid: ${model}`);
}

/** OpenAI's (and Azure OpenAI's) embeddings, with the usage aimock leaves at zero. */
function openaiEmbed(body: Body): Answer {
  const inputs = typeof body.input === "string" ? [body.input] : strings(body.input) ? body.input : null;
  if (!inputs) return json(400, { error: { message: "'input' is a string or an array of strings here", type: "invalid_request_error", param: "input", code: null } });
  const tokens = inputs.reduce((sum, text) => sum + wordsOf(text), 0);
  const base64 = body.encoding_format === "base64";
  const data = inputs.map((text, index) => ({ object: "embedding", index, embedding: base64 ? Buffer.from(Float32Array.from(vectorOf(text)).buffer).toString("base64") : vectorOf(text) }));
  return json(200, { object: "list", data, model: body.model ?? "deployment", usage: { prompt_tokens: tokens, total_tokens: tokens } });
}

function cohereEmbed(body: Body): Answer {
  if (typeof body.model !== "string" || !strings(body.texts)) return json(400, { message: "invalid request: model and texts are required" });
  if (typeof body.input_type !== "string") return json(400, { message: "invalid request: input_type is required for embed-english-v3.0 and later" });
  const size = typeof body.output_dimension === "number" ? body.output_dimension : 4;
  const vectors = body.texts.map((text) => vectorOf(text, size));
  const tokens = body.texts.reduce((sum, text) => sum + wordsOf(text), 0);
  return json(200, { id: "cohere-embed-1", texts: body.texts, embeddings: { float: vectors }, meta: { api_version: { version: "2" }, billed_units: { input_tokens: tokens } }, response_type: "embeddings_by_type" });
}

/** The stand-in: its `url` ends in `/v1`; `base` is the server's root. */
export async function startBeyondChatUpstream(): Promise<RecordingUpstream & { base: string; lastBody(): Body }> {
  const upstream = await startRecordingUpstream((request) => {
    let body: Body;
    try {
      const parsed: unknown = JSON.parse(request.body.toString("utf8"));
      if (!isObject(parsed)) throw new Error("not an object");
      body = parsed;
    } catch {
      return json(400, { message: "The request body is not JSON." });
    }
    const path = decodeURIComponent(request.path.split("?")[0]!);
    const gemini = /^\/v1beta\/models\/([^/:]+):(embedContent|batchEmbedContents)$/.exec(path);
    if (gemini) return geminiEmbed(gemini[1]!, gemini[2]!, body);
    const vertex = /^\/v1\/projects\/[^/]+\/locations\/[^/]+\/publishers\/google\/models\/([^/:]+):predict$/.exec(path);
    if (vertex) return vertexPredict(vertex[1]!, body);
    const bedrock = /^\/model\/([^/]+)\/invoke$/.exec(path);
    if (bedrock) return bedrockInvoke(bedrock[1]!, body);
    if (path === "/v2/embed") return cohereEmbed(body);
    if (path === "/v1/embeddings" || /^\/openai\/deployments\/[^/]+\/embeddings$/.test(path)) return openaiEmbed(body);
    return json(404, { message: `no route ${path}` });
  });
  return {
    ...upstream,
    base: upstream.url.replace(/\/v1$/, ""),
    lastBody: () => JSON.parse(upstream.received.at(-1)!.body.toString("utf8")) as Body,
  };
}
