/**
 * Google Vertex AI: Gemini models on Google Cloud. The request, answer, stream and error
 * formats are the Gemini API's, so Gemini's transforms serve it as they are; only the place
 * (a project and location, `paths.ts`) and the credentials (an OAuth access token, minted from
 * a service-account key when one is given, `auth.ts`) differ. Embeddings (`embeddings.ts`) and
 * images (Imagen, `gemini/imagen.ts`) go through Vertex's `:predict` on its text embedding and Imagen models.
 * https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference
 */
import { geminiProvider } from "../gemini/index.ts";
import type { Provider } from "../provider.ts";
import { vertexAuthorizer } from "./auth.ts";
import { vertexBatch } from "./batch.ts";
import { VERTEX_FIELDS, vertexBaseUrl, vertexPath } from "./paths.ts";
import { vertexEmbeddings } from "./embeddings.ts";
import { imagenImages } from "../gemini/imagen.ts";
import { googleUpstreamError } from "../gemini/upstream-error.ts";

export const vertexProvider: Provider = {
  id: "vertex",
  name: "Google Vertex AI",
  // The location's host comes from `vertex_location`; without one the path asks for it.
  baseUrl: "https://aiplatform.googleapis.com/v1",
  docs: "https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference",
  openaiFormat: false,
  credentialFields: VERTEX_FIELDS,
  keyIsDocument: true,
  baseUrlFrom: vertexBaseUrl,
  baseUrlHosts: /^([a-z0-9-]+-)?aiplatform\.googleapis\.com$/,
  upstreamPath: (path, { fields }) => vertexPath(path, { fields }),
  // Embeddings and images are Vertex's own `:predict` (text embedding and Imagen models).
  operations: { ...geminiProvider.operations, createEmbedding: vertexEmbeddings, createImage: imagenImages("Google Vertex AI (Imagen)") },
  batch: vertexBatch,
  streamProtocol: geminiProvider.streamProtocol,
  webSearch: geminiProvider.webSearch,
  authorize: vertexAuthorizer(),
  error: googleUpstreamError("Google Vertex AI"),
};
