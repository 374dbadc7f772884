/**
 * `chat`: an OpenAI chat completion, a stream assembled into one. `responses`: a Responses API
 * answer, a stream logged as its final response object (its events when it was cut before
 * one). `stored`: an answer about work done earlier (a stored response read back, cancelled,
 * deleted, listed), kept as is without usage, so its tokens are not counted and priced twice.
 * `json`: any other JSON operation (embeddings, the pass-through), a stream kept as the array of
 * its events. `messages`: an Anthropic message (what `POST /v1/messages` clients get), a stream
 * assembled into one, its usage in Anthropic's names. Named by `OperationDescriptor.format`, read by
 * `logging/answer-formats.ts`.
 */
export type AnswerFormat = "chat" | "responses" | "stored" | "json" | "messages" | MediaFormat;

/**
 * Read as `json`, and priced per image, character, minute (`logging/media-answers.ts`) or, for `video`
 * (a video job created or remixed), per second of video.
 */
export type MediaFormat = "image" | "speech" | "transcription" | "video";
