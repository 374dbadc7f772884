/**
 * The cost of an image, speech, transcription or video answer, read from the logged request (a
 * JSON body, or an upload's metadata with its form `fields`) and the logged answer.
 * https://platform.openai.com/docs/api-reference/images
 * https://platform.openai.com/docs/api-reference/audio
 * https://platform.openai.com/docs/api-reference/videos
 */
import type { PricedAnswer } from "../../operation/answer-reader.ts";
import { imageCostUsd, speechCostUsd, transcriptionCostUsd, videoCostUsd, type MediaTokens } from "./prices.ts";

/** What a media answer's price is read from: the request's fields, the answer (or a stream's last event with usage). */
interface MediaFacts {
  provider: string;
  model: string;
  request: Record<string, unknown>;
  answer: Record<string, unknown> | null;
}

/** The facts of a successful answer with a provider and model; null otherwise (no cost is known). */
function factsOf({ provider, model, requestBody, answerBody, succeeded }: PricedAnswer): MediaFacts | null {
  if (!succeeded || !provider || !model) return null;
  const sent = objectOf(parse(requestBody));
  return { provider, model, request: objectOf(sent?.fields) ?? sent ?? {}, answer: lastWithUsage(parse(answerBody)) };
}

/** Each image the answer holds (or the request's `n`), at the request's size and quality. */
export function imageAnswerCost(priced: PricedAnswer): number | null {
  const facts = factsOf(priced);
  if (!facts) return null;
  const data = facts.answer?.data;
  const images = Array.isArray(data) ? data.length : facts.request.n === undefined ? 1 : Number(facts.request.n);
  return imageCostUsd(facts.provider, facts.model, facts.request, images);
}

/** The input's characters, or the tokens the answer reports. */
export function speechAnswerCost(priced: PricedAnswer): number | null {
  const facts = factsOf(priced);
  if (!facts || typeof facts.request.input !== "string") return null;
  return speechCostUsd(facts.provider, facts.model, facts.request.input, tokensOf(facts.answer?.usage));
}

/** The seconds of audio the answer states, or the tokens it reports. */
export function transcriptionAnswerCost(priced: PricedAnswer): number | null {
  const facts = factsOf(priced);
  if (!facts) return null;
  const { answer } = facts;
  const usage = objectOf(answer?.usage);
  const seconds = typeof answer?.duration === "number" ? answer.duration : usage?.type === "duration" && typeof usage.seconds === "number" ? usage.seconds : null;
  return transcriptionCostUsd(facts.provider, facts.model, { seconds, tokens: usage?.type === "duration" ? null : tokensOf(usage) });
}

/** The job's seconds and size as the answer describes it, else as the request asked for it. */
export function videoAnswerCost(priced: PricedAnswer): number | null {
  const facts = factsOf(priced);
  if (!facts) return null;
  const seconds = facts.answer?.seconds ?? facts.request.seconds;
  const size = facts.answer?.size ?? facts.request.size;
  return videoCostUsd(facts.provider, facts.model, {
    seconds: seconds === undefined || seconds === null ? null : Number(seconds),
    size: typeof size === "string" ? size : null,
  });
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
