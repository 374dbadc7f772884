import { createTranscriptionRoute } from "../generated/routes.gen.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { proxiedRoute } from "./proxied-route.ts";
import { streamEndsAt } from "../streams/stream-end.ts";

/**
 * Transcriptions: a multipart upload passed upstream as it arrives (the generated route does not read it);
 * the log keeps its content type, size and small form fields, never the file. No guardrails:
 * a config that attaches them is refused (400).
 * The answer is JSON or text (per `response_format`), relayed as it arrives.
 */
export const transcriptionOperation: OperationDescriptor = {
  id: "createTranscription",
  method: "POST",
  upstreamPath: { fixed: "/audio/transcriptions" },
  body: "as-sent",
  answer: "as-sent",
  isStreamEnd: streamEndsAt("transcript.text.done"),
  format: "transcription",
  genAiOperation: "generate_content",
};

export const registerCreateTranscription = proxiedRoute(createTranscriptionRoute, transcriptionOperation);
