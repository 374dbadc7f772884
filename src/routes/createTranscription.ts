import { createTranscriptionRoute } from "../generated/routes.gen.ts";
import { streamEndsAt, transcriptionAnswers } from "../families/media/index.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";


/**
 * Transcriptions: a multipart upload passed upstream as it arrives (the generated route does not read it);
 * the log keeps its content type, size and small form fields, never the file. No guardrails:
 * a config that attaches them is refused (400).
 * The answer is JSON or text (per `response_format`), relayed as it arrives.
 */
export const transcriptionOperation = proxiedOperation(createTranscriptionRoute, {
  answer: "as-sent",
  isStreamEnd: streamEndsAt("transcript.text.done"),
  answers: transcriptionAnswers,
  genAiOperation: "generate_content",
});

export const registerCreateTranscription = proxiedRoute(createTranscriptionRoute, transcriptionOperation);
