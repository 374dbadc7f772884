import { describe, expect, it } from "vitest";
import type { PricedAnswer } from "../../operation/answer-reader.ts";
import { imageAnswers, speechAnswers, transcriptionAnswers, videoAnswers } from "./index.ts";

type MediaCostInput = PricedAnswer & { format: "image" | "speech" | "transcription" | "video" };
const READERS = { image: imageAnswers, speech: speechAnswers, transcription: transcriptionAnswers, video: videoAnswers };

/** The cost the family's reader of `format` gives the answer. */
function mediaCostUsd({ format, ...answer }: MediaCostInput): number | null {
  return READERS[format].cost!(answer);
}

const base: MediaCostInput = { format: "image", provider: "openai", model: "dall-e-3", requestBody: null, answerBody: null, succeeded: true };

describe("the media readers' cost", () => {
  it("counts an image answer's images, at the request's size and quality", () => {
    const requestBody = JSON.stringify({ model: "dall-e-3", prompt: "a cat", size: "1792x1024", quality: "hd", n: 5 });
    const answerBody = JSON.stringify({ created: 1, data: [{ url: "a" }, { url: "b" }] });
    expect(mediaCostUsd({ ...base, requestBody, answerBody })).toBeCloseTo(0.24, 10);
    // An answer cut in the log falls back to the request's `n`.
    expect(mediaCostUsd({ ...base, requestBody, answerBody: '{"created":1,"data":[{"b64_json":"iVBOR' })).toBeCloseTo(0.6, 10);
  });

  it("reads an upload's form fields from its logged metadata", () => {
    const requestBody = JSON.stringify({ content_type: "multipart/form-data; boundary=x", size_bytes: 10, fields: { model: "dall-e-2", size: "512x512" }, files: [] });
    expect(mediaCostUsd({ ...base, model: "dall-e-2", requestBody, answerBody: '{"created":1,"data":[{"url":"a"}]}' })).toBeCloseTo(0.018, 10);
  });

  it("prices a video job from its answer's seconds and size, else from the request's form fields", () => {
    const video = { ...base, format: "video" as const, model: "sora-2-pro" };
    const answerBody = JSON.stringify({ id: "video_1", object: "video", model: "sora-2-pro", status: "queued", seconds: "8", size: "1792x1024" });
    expect(mediaCostUsd({ ...video, answerBody })).toBeCloseTo(4, 10);
    // An answer that leaves them out (or was not JSON) falls back to the upload's fields.
    const requestBody = JSON.stringify({ content_type: "multipart/form-data; boundary=x", size_bytes: 10, fields: { model: "sora-2-pro", seconds: "12", size: "1280x720" }, files: [] });
    expect(mediaCostUsd({ ...video, requestBody, answerBody: '{"id":"video_1","status":"queued"}' })).toBeCloseTo(3.6, 10);
    expect(mediaCostUsd({ ...video, model: "sora-2", answerBody: '{"id":"video_1"}' })).toBeCloseTo(0.4, 10);
    expect(mediaCostUsd({ ...video, answerBody, succeeded: false })).toBeNull();
  });

  it("prices speech by the request's input, or by a streamed answer's usage", () => {
    const requestBody = JSON.stringify({ model: "tts-1", input: "hello", voice: "alloy" });
    const answerBody = JSON.stringify({ content_type: "audio/mpeg", size_bytes: 1234 });
    expect(mediaCostUsd({ ...base, format: "speech", model: "tts-1", requestBody, answerBody })).toBeCloseTo((5 * 15) / 1e6, 12);
    const events = JSON.stringify([{ type: "speech.audio.delta" }, { type: "speech.audio.done", usage: { input_tokens: 10, output_tokens: 100, total_tokens: 110 } }]);
    expect(mediaCostUsd({ ...base, format: "speech", model: "gpt-4o-mini-tts", requestBody, answerBody: events })).toBeCloseTo((10 * 0.6 + 100 * 12) / 1e6, 12);
  });

  it("prices a transcription by its duration, its duration usage or its token usage", () => {
    const t = { ...base, format: "transcription" as const, model: "whisper-1" };
    expect(mediaCostUsd({ ...t, answerBody: JSON.stringify({ text: "hi", duration: 120 }) })).toBeCloseTo(0.012, 10);
    expect(mediaCostUsd({ ...t, answerBody: JSON.stringify({ text: "hi", usage: { type: "duration", seconds: 30 } }) })).toBeCloseTo(0.003, 10);
    const usage = { type: "tokens", input_tokens: 110, output_tokens: 20, input_token_details: { audio_tokens: 100, text_tokens: 10 } };
    expect(mediaCostUsd({ ...t, model: "gpt-4o-transcribe", answerBody: JSON.stringify({ text: "hi", usage }) })).toBeCloseTo((10 * 2.5 + 100 * 6 + 20 * 10) / 1e6, 12);
    expect(mediaCostUsd({ ...t, answerBody: "plain text transcript" })).toBeNull();
  });

  it("is null for a failed request or one without provider or model", () => {
    const requestBody = JSON.stringify({ model: "dall-e-3", prompt: "a cat" });
    expect(mediaCostUsd({ ...base, requestBody, succeeded: false })).toBeNull();
    expect(mediaCostUsd({ ...base, requestBody, model: null })).toBeNull();
  });
});
