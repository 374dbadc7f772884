/**
 * Where a Vertex AI request goes (pure): the location's host and the publisher model's path.
 * Gemini's transforms give `/models/{model}:generateContent` (or the SSE stream); Vertex puts
 * the project and location before it.
 * https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/projects.locations.publishers.models/generateContent
 */
import { GatewayError } from "../../errors.ts";
import type { CredentialField } from "../provider.ts";

/** A project id (6–30 characters: lowercase letters, digits, hyphens, a letter first) or a project number. */
export const PROJECT = /^([a-z][a-z0-9-]{4,28}[a-z0-9]|\d{6,20})$/;
/** `global`, or a region as it appears in a host name (`us-central1`, `europe-west4`, `northamerica-northeast1`). */
export const LOCATION = /^(global|[a-z]+-[a-z]+\d{1,2})$/;

export const VERTEX_FIELDS: readonly CredentialField[] = [
  { name: "vertex_project", header: "x-gateway-vertex-project", secret: false, pattern: PROJECT, description: "Google Cloud project id (such as my-project-123) or number" },
  { name: "vertex_location", header: "x-gateway-vertex-location", secret: false, pattern: LOCATION, description: "Vertex AI location (such as us-central1, europe-west4 or global)" },
  {
    name: "vertex_batch_bucket",
    header: "x-gateway-vertex-batch-bucket",
    secret: false,
    pattern: /^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$/,
    description: "Cloud Storage bucket the gateway writes batch input to and reads batch predictions from",
  },
];

/** The API root of a location (`…/v1`), or null for a location that is not one; `global` has no regional prefix. */
export function vertexBaseUrl(fields: Readonly<Record<string, string>>): string | null {
  const location = fields.vertex_location;
  if (!location || !LOCATION.test(location)) return null;
  return location === "global" ? "https://aiplatform.googleapis.com/v1" : `https://${location}-aiplatform.googleapis.com/v1`;
}

/**
 * `/projects/{project}/locations/{location}/publishers/google` before the model path the Gemini
 * transform gave; a 400 naming the header when the project or location is missing.
 */
export function vertexPath(path: string, context: { fields: Readonly<Record<string, string>> }): string | GatewayError {
  const { vertex_project: project, vertex_location: location } = context.fields;
  if (!project || !PROJECT.test(project)) {
    return new GatewayError("invalid_request", "Vertex AI needs the Google Cloud project: send x-gateway-vertex-project (or store vertex_project in the virtual key).", {
      param: "x-gateway-vertex-project",
    });
  }
  if (!location || !LOCATION.test(location)) {
    return new GatewayError("invalid_request", "Vertex AI needs a location: send x-gateway-vertex-location (us-central1, europe-west4, global…) or store vertex_location in the virtual key.", {
      param: "x-gateway-vertex-location",
    });
  }
  return `/projects/${project}/locations/${location}/publishers/google${path}`;
}
