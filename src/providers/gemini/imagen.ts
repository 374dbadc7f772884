/**
 * OpenAI image generation on Imagen models (pure), through `:predict`, which the Gemini API and
 * Vertex AI take and answer alike (Vertex puts the project and location before the path): the prompt as
 * the one instance, `n` as `parameters.sampleCount` (1 to 4), `size` as the `aspectRatio` Imagen
 * takes (a size of exactly 1:1, 3:4, 4:3, 9:16 or 16:9, or one of the sizes Imagen makes at them,
 * such as 1408x768; any other is refused with a 400), `output_format` png or
 * jpeg as `outputOptions.mimeType`. Imagen answers `predictions[].bytesBase64Encoded`; a
 * prediction its safety filter withheld has no bytes and is left out.
 * https://ai.google.dev/gemini-api/docs/imagen
 * https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/imagen-api
 */
import { GatewayError } from "../../errors.ts";
import { imagesAnswer, readImageRequest } from "../images.ts";
import type { JsonObject, OperationTransforms } from "../provider.ts";

const ASPECT_RATIOS = ["1:1", "3:4", "4:3", "9:16", "16:9"];
/** The sizes Imagen makes at each aspect ratio, which are not exactly that ratio. */
const IMAGEN_SIZES: Readonly<Record<string, string>> = { "896x1280": "3:4", "1280x896": "4:3", "768x1408": "9:16", "1408x768": "16:9" };
const MAX_IMAGES = 4;

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);
const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
const refuse = (message: string, param: string): { error: GatewayError } => ({ error: new GatewayError("invalid_request", message, { param }) });

/** The image transforms of Imagen on a provider, named in refusals as `provider` (such as "Google Vertex AI (Imagen)"). */
export function imagenImages(provider: string): OperationTransforms {
  return {
    request(body, { model }) {
      if (!/(^|\/)imagen-/.test(model)) return refuse(`${provider} generates images with Imagen models (such as imagen-4.0-generate-001); ${model.slice(0, 100)} is not one.`, "model");
      const read = readImageRequest(body, provider, MAX_IMAGES);
      if ("error" in read) return read;
      const parameters: JsonObject = { sampleCount: read.n };
      if (read.size) {
        const { width, height } = read.size;
        const divisor = gcd(width, height) || 1;
        const ratio = IMAGEN_SIZES[`${width}x${height}`] ?? `${width / divisor}:${height / divisor}`;
        if (!ASPECT_RATIOS.includes(ratio)) {
          return refuse(`${provider} takes an aspect ratio of ${ASPECT_RATIOS.join(", ")} (or one of its sizes, such as 1408x768); size ${width}x${height} is ${ratio}.`, "size");
        }
        parameters.aspectRatio = ratio;
      }
      if (read.quality !== null && read.quality !== "standard") return refuse(`${provider} has no quality ${JSON.stringify(read.quality)}: leave out quality.`, "quality");
      if (read.outputFormat !== null) {
        if (read.outputFormat !== "png" && read.outputFormat !== "jpeg") return refuse(`${provider} makes png or jpeg images.`, "output_format");
        parameters.outputOptions = { mimeType: `image/${read.outputFormat}` };
      }
      return { body: { instances: [{ prompt: read.prompt }], parameters }, path: `/models/${encodeURIComponent(model)}:predict` };
    },
    response(answer, { clientBody }) {
      const predictions = Array.isArray(answer.predictions) ? answer.predictions.filter(isObject) : [];
      const images = predictions.flatMap((prediction) => (typeof prediction.bytesBase64Encoded === "string" && prediction.bytesBase64Encoded !== "" ? [prediction.bytesBase64Encoded] : []));
      const filtered = predictions.flatMap((prediction) => (typeof prediction.raiFilteredReason === "string" ? [prediction.raiFilteredReason] : []));
      return imagesAnswer(images, typeof clientBody.output_format === "string" ? clientBody.output_format : null, provider, filtered[0] ?? null);
    },
  };
}
