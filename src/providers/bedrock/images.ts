/**
 * OpenAI image generation on Bedrock through InvokeModel (pure), for Amazon Nova Canvas
 * (`amazon.nova-canvas-v1:0`) and Titan Image Generator (`amazon.titan-image-generator-v2:0`,
 * `-v1`): a `TEXT_IMAGE` task with the prompt as `textToImageParams.text`, `n` as
 * `numberOfImages` (1 to 5), `size` as `width` and `height` (1024x1024 when left out or `auto`;
 * Nova Canvas takes sides of 320 to 4096 pixels in steps of 16, at most 4,194,304 pixels and an
 * aspect ratio within 1:4 and 4:1; Titan its listed sizes), `quality` `standard` as `standard`
 * and `hd` or `high` as `premium`. The answer's `images` are base64 PNGs. Other Bedrock image
 * models (Stability) are refused with a 400 naming the model.
 * https://docs.aws.amazon.com/nova/latest/userguide/image-gen-req-resp-structure.html
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-image.html
 */
import { GatewayError } from "../../errors.ts";
import { imagesAnswer, readImageRequest } from "../images.ts";
import type { OperationTransforms } from "../provider.ts";

const MAX_IMAGES = 5;
const TITAN_SIZES = new Set([
  "1024x1024", "768x768", "512x512", "768x1152", "384x576", "1152x768", "576x384", "768x1280", "384x640", "1280x768", "640x384",
  "896x1152", "448x576", "1152x896", "576x448", "768x1408", "384x704", "1408x768", "704x384", "640x1408", "320x704", "1408x640",
  "704x320", "1152x640", "1173x640",
]);

const isNova = (model: string): boolean => /(^|\.)amazon\.nova-canvas-/.test(model);
const isTitan = (model: string): boolean => /(^|\.)amazon\.titan-image-generator-/.test(model);
const refuse = (message: string, param: string): { error: GatewayError } => ({ error: new GatewayError("invalid_request", message, { param }) });

/** Why Nova Canvas cannot make an image of this size, or null when it can. */
function novaSizeProblem(width: number, height: number): string | null {
  if ([width, height].some((side) => side < 320 || side > 4096 || side % 16 !== 0)) return "sides of 320 to 4096 pixels in steps of 16";
  if (width * height > 4_194_304) return "at most 4,194,304 pixels";
  if (width > height * 4 || height > width * 4) return "an aspect ratio within 1:4 and 4:1";
  return null;
}

export const bedrockImages: OperationTransforms = {
  request(body, { model }) {
    const nova = isNova(model);
    if (!nova && !isTitan(model)) {
      return refuse(`AWS Bedrock generates images through InvokeModel with Amazon Nova Canvas or Titan Image Generator; ${model.slice(0, 100)} is not one.`, "model");
    }
    const provider = nova ? "AWS Bedrock (Nova Canvas)" : "AWS Bedrock (Titan Image Generator)";
    const read = readImageRequest(body, provider, MAX_IMAGES);
    if ("error" in read) return read;
    const { width, height } = read.size ?? { width: 1024, height: 1024 };
    const problem = nova ? novaSizeProblem(width, height) : TITAN_SIZES.has(`${width}x${height}`) ? null : "one of its listed sizes (such as 1024x1024, 1152x896 or 1408x768)";
    if (problem) return refuse(`${provider} makes images of ${problem}, not ${width}x${height}.`, "size");
    const quality = read.quality === null || read.quality === "standard" ? "standard" : read.quality === "hd" || read.quality === "high" ? "premium" : null;
    if (!quality) return refuse(`${provider} has quality standard or premium (hd or high), not ${JSON.stringify(read.quality)}.`, "quality");
    if (read.outputFormat !== null && read.outputFormat !== "png") return refuse(`${provider} makes png images only.`, "output_format");
    return {
      body: { taskType: "TEXT_IMAGE", textToImageParams: { text: read.prompt }, imageGenerationConfig: { numberOfImages: read.n, width, height, quality } },
      path: `/model/${encodeURIComponent(model)}/invoke`,
    };
  },
  response(answer, { clientBody, model }) {
    const images = Array.isArray(answer.images) ? answer.images.filter((image): image is string => typeof image === "string" && image !== "") : [];
    // Nova Canvas and Titan say why they made no image (a content filter) in `error`.
    const reason = typeof answer.error === "string" ? answer.error : null;
    return imagesAnswer(images, typeof clientBody.output_format === "string" ? clientBody.output_format : null, isNova(model) ? "AWS Bedrock (Nova Canvas)" : "AWS Bedrock (Titan Image Generator)", reason);
  },
};
