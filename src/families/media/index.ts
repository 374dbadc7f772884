/**
 * The media family: images, speech, transcriptions and translations, and videos. Their answers
 * are read as JSON and priced by what they hold (per image, character, minute or second of
 * video, from the `media` section of the price table) rather than per token; some of their
 * streams end at a last typed event instead of `[DONE]`.
 */
import { jsonAnswers, type AnswerReader } from "../../operation/answer-reader.ts";
import { imageAnswerCost, speechAnswerCost, transcriptionAnswerCost, videoAnswerCost } from "./cost.ts";

export { streamEndsAt } from "./stream-end.ts";
export { MEDIA_PRICES_AS_OF } from "./prices.ts";

/** An image generation, edit or variation: priced per image at the request's size and quality. */
export const imageAnswers: AnswerReader = { ...jsonAnswers, name: "image", cost: imageAnswerCost };

/** Speech: priced per character of input, or per token where the model bills tokens. */
export const speechAnswers: AnswerReader = { ...jsonAnswers, name: "speech", cost: speechAnswerCost };

/** A transcription or translation: priced per minute of audio, or per token. */
export const transcriptionAnswers: AnswerReader = { ...jsonAnswers, name: "transcription", cost: transcriptionAnswerCost };

/** A video job created, edited, extended or remixed: priced per second of video at its size. */
export const videoAnswers: AnswerReader = { ...jsonAnswers, name: "video", cost: videoAnswerCost };
