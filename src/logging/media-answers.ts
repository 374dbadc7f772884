/**
 * The cost of an `image`, `speech`, `transcription` or `video` answer (`answer-formats.ts`), read from
 * the logged request (a JSON body, or an upload's metadata with its form `fields`) and the
 * logged answer. https://platform.openai.com/docs/api-reference/images
 * https://platform.openai.com/docs/api-reference/audio
 */
import { imageCostUsd, speechCostUsd, transcriptionCostUsd, videoCostUsd, type MediaTokens } from "../pricing/media-cost.ts";
import type { AnswerFormat } from "../operation/answer-format.ts";

export const MEDIA_FORMATS: ReadonlySet<AnswerFormat> = new Set<AnswerFormat>(["image", "speech", "transcription", "video"]);

export interface MediaCostInput {
  format: AnswerFormat;
  provider: string | null;
  model: string | null;
  /** The logged request body. */
  requestBody: string | null;
  /** The logged answer body (JSON, a stream's events as a JSON array, or a binary answer's metadata). */
  answerBody: string | null;
  succeeded: boolean;
}

/** The answer's cost in USD; null when it cannot be known (see `media-cost.ts`). Never throws. */
export function mediaCostUsd({ format, provider, model, requestBody, answerBody, succeeded }: MediaCostInput): number | null {
  if (!succeeded || !provider || !model) return null;
  const sent = objectOf(parse(requestBody));
  const request = objectOf(sent?.fields) ?? sent ?? {};
  const answer = lastWithUsage(parse(answerBody));
  if (format === "image") {
    const data = answer?.data;
    const images = Array.isArray(data) ? data.length : request.n === undefined ? 1 : Number(request.n);
    return imageCostUsd(provider, model, request, images);
  }
  if (format === "speech") {
    return typeof request.input === "string" ? speechCostUsd(provider, model, request.input, tokensOf(answer?.usage)) : null;
  }
  if (format === "transcription") {
    const usage = objectOf(answer?.usage);
    const seconds = typeof answer?.duration === "number" ? answer.duration : usage?.type === "duration" && typeof usage.seconds === "number" ? usage.seconds : null;
    return transcriptionCostUsd(provider, model, { seconds, tokens: usage?.type === "duration" ? null : tokensOf(usage) });
  }
  if (format === "video") {
    // The job as the answer describes it, else as the request asked for it.
    const seconds = answer?.seconds ?? request.seconds;
    const size = answer?.size ?? request.size;
    return videoCostUsd(provider, model, {
      seconds: seconds === undefined || seconds === null ? null : Number(seconds),
      size: typeof size === "string" ? size : null,
    });
  }
  return null;
}

/** `input_tokens` / `output_tokens` (with `input_token_details.audio_tokens` split out), or null. */
function tokensOf(raw: unknown): MediaTokens | null {
  const usage = objectOf(raw);
  if (!usage || typeof usage.input_tokens !== "number" || typeof usage.output_tokens !== "number") return null;
  const details = objectOf(usage.input_token_details) ?? objectOf(usage.input_tokens_details);
  const audio = typeof details?.audio_tokens === "number" ? details.audio_tokens : 0;
  const text = typeof details?.text_tokens === "number" ? details.text_tokens : usage.input_tokens - audio;
  return { input: text, audioInput: audio, output: usage.output_tokens };
}

/** The answer object; for a stream (an array of events), the last event that reports usage. */
function lastWithUsage(value: unknown): Record<string, unknown> | null {
  if (!Array.isArray(value)) return objectOf(value);
  for (let i = value.length - 1; i >= 0; i--) {
    const event = objectOf(value[i]);
    if (event?.usage !== undefined) return event;
  }
  return null;
}

function parse(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function objectOf(value: unknown): Record<string, unknown> | null {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}
