/**
 * OpenAI message content parts as Gemini `parts` (pure). Text stays text; an image or file given
 * as a base64 data URL goes inline (`inlineData`); one given by URL goes as `fileData.fileUri`,
 * which Gemini resolves only for its own Files API URIs, YouTube links and (on newer models) some
 * public URLs: the gateway fetches nothing. Audio (`input_audio`) goes inline with its MIME type.
 * https://ai.google.dev/api/caching#Part
 */
import type { JsonObject } from "../provider.ts";
import { arrayOf, isObject, stringOf } from "./values.ts";

const DATA_URL = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;

const EXTENSION_TYPES: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  gif: "image/gif",
  heic: "image/heic",
  heif: "image/heif",
  pdf: "application/pdf",
  mp3: "audio/mp3",
  wav: "audio/wav",
  mp4: "video/mp4",
};

/** The parts of a message's `content`: a string, or an array of typed parts (unknown ones dropped). */
export function contentParts(content: unknown): JsonObject[] {
  if (typeof content === "string") return content === "" ? [] : [{ text: content }];
  const parts: JsonObject[] = [];
  for (const part of arrayOf(content)) {
    if (!isObject(part)) continue;
    const converted = contentPart(part);
    if (converted) parts.push(converted);
  }
  return parts;
}

/** The text of a `content` (string or parts), for roles Gemini takes as text only. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  return arrayOf(content)
    .map((part) => (isObject(part) ? (stringOf(part.text) ?? "") : ""))
    .join("");
}

function contentPart(part: JsonObject): JsonObject | null {
  switch (part.type) {
    case "text":
      return typeof part.text === "string" ? { text: part.text } : null;
    case "image_url": {
      const url = isObject(part.image_url) ? stringOf(part.image_url.url) : stringOf(part.image_url);
      return url === undefined ? null : mediaPart(url);
    }
    case "input_audio": {
      const audio = isObject(part.input_audio) ? part.input_audio : {};
      const data = stringOf(audio.data);
      return data === undefined ? null : { inlineData: { mimeType: `audio/${stringOf(audio.format) ?? "wav"}`, data } };
    }
    case "file": {
      const file = isObject(part.file) ? part.file : {};
      const data = stringOf(file.file_data);
      if (data !== undefined) return mediaPart(data.startsWith("data:") ? data : `data:application/pdf;base64,${data}`);
      const id = stringOf(file.file_id);
      return id === undefined ? null : { fileData: { fileUri: id } };
    }
    default:
      return null;
  }
}

/** A data URL inline; any other URL by reference, with a MIME type guessed from its extension. */
function mediaPart(url: string): JsonObject {
  const inline = DATA_URL.exec(url);
  if (inline) return { inlineData: { mimeType: inline[1], data: inline[2] } };
  const extension = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(url)?.[1]?.toLowerCase();
  const mimeType = extension === undefined ? undefined : EXTENSION_TYPES[extension];
  return { fileData: mimeType ? { mimeType, fileUri: url } : { fileUri: url } };
}
