/**
 * A Gemini API stream's events assembled into the `GenerateContentResponse` they describe, as
 * `@google/genai`'s chats do: the log keeps a stream as that response, and output guardrails
 * judge its text. Never throws; events of other shapes are ignored.
 * https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
import type { JsonObject } from "../../providers/provider.ts";
import { arrayField, isObject, numberField, objectField, stringField } from "./json.ts";

/** The response of a stream's events (their parsed data, in order); null when none was a response. */
export function assembleGeminiResponse(events: readonly unknown[]): JsonObject | null {
  let response: JsonObject | null = null;
  const candidates = new Map<number, JsonObject & { content: { role: string; parts: JsonObject[] } }>();
  for (const event of events) {
    if (!isObject(event) || isObject(event.error)) continue;
    response ??= {};
    for (const key of ["modelVersion", "responseId"]) if (typeof event[key] === "string") response[key] ??= event[key];
    // Each event's counts are the running totals: the last one holds them all.
    if (isObject(event.usageMetadata)) response.usageMetadata = event.usageMetadata;
    arrayField(event, "candidates").forEach((candidate, position) => {
      const index = numberField(candidate, "index") ?? position;
      let merged = candidates.get(index);
      if (!merged) candidates.set(index, (merged = { content: { role: "model", parts: [] }, index }));
      for (const part of arrayField(objectField(candidate, "content"), "parts")) if (isObject(part)) addPart(merged.content.parts, part);
      const finishReason = stringField(candidate, "finishReason");
      if (finishReason) merged.finishReason = finishReason;
    });
  }
  if (response) response.candidates = [...candidates.values()].sort((a, b) => (a.index as number) - (b.index as number));
  return response;
}

/** A part appended: text joins the text part before it when both are thoughts or neither is; an empty text adds nothing. */
function addPart(parts: JsonObject[], part: JsonObject): void {
  const last = parts.at(-1);
  if (typeof part.text === "string") {
    if (part.text === "") return;
    if (last && typeof last.text === "string" && (last.thought === true) === (part.thought === true)) {
      last.text += part.text;
      return;
    }
  }
  parts.push({ ...part });
}

/** A response's answer text: every candidate's text parts that are not thoughts, a line between candidates (what output guardrails judge). */
export function geminiResponseText(response: unknown): string {
  return arrayField(response, "candidates")
    .map((candidate) =>
      arrayField(objectField(candidate, "content"), "parts")
        .filter((part) => isObject(part) && typeof part.text === "string" && part.thought !== true)
        .map((part) => (part as JsonObject).text as string)
        .join(""),
    )
    .join("\n");
}
