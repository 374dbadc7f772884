/**
 * The final events of the OpenAI streams that close without `[DONE]`: image generations and
 * edits, speech (`stream_format: "sse"`) and transcriptions end at their last typed event.
 * https://platform.openai.com/docs/api-reference/images-streaming
 * https://platform.openai.com/docs/api-reference/audio/speech-audio-done-event
 * https://platform.openai.com/docs/api-reference/audio/transcript-text-done-event
 */
import { parseObject } from "../../operation/answer-reader.ts";
import type { StreamEvent } from "../../streams/stream-protocol.ts";

/**
 * Whether a stream event is one of `types`, by its `event:` line, or without one by its data's
 * `type` (parsed only when the data names one of them at all). Never throws.
 */
export function streamEndsAt(...types: string[]): (event: StreamEvent) => boolean {
  const ends = new Set(types);
  return (event) => {
    if (event.event !== null) return ends.has(event.event);
    if (!types.some((type) => event.data.includes(`"${type}"`))) return false;
    const type = parseObject(event.data)?.type;
    return typeof type === "string" && ends.has(type);
  };
}
