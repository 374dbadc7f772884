/**
 * Request and response bodies shared by the bench upstream and the load drivers.
 * Realistic sizes matter: the gateway parses, logs and relays these bytes.
 */

const MODEL = "gpt-4o-mini-2024-07-18";
const CREATED = 1_735_689_600;
const ID = "chatcmpl-bench0000000000000000000000";
const FINGERPRINT = "fp_bench000000";

/** The non-streamed request every load measurement sends. */
export const chatBody = JSON.stringify({
  model: "gpt-4o-mini",
  messages: [
    { role: "system", content: "You are a concise assistant. Answer in one short paragraph." },
    { role: "user", content: "Explain in two sentences why a reverse proxy adds latency." },
  ],
  temperature: 0.2,
  max_tokens: 128,
});

/** The streamed request; asks for the final usage chunk like most SDK users do. */
export const streamBody = JSON.stringify({
  ...(JSON.parse(chatBody) as Record<string, unknown>),
  stream: true,
  stream_options: { include_usage: true },
});

const usage = {
  prompt_tokens: 31,
  completion_tokens: 42,
  total_tokens: 73,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: {
    reasoning_tokens: 0,
    audio_tokens: 0,
    accepted_prediction_tokens: 0,
    rejected_prediction_tokens: 0,
  },
};

const answer =
  "Every hop parses, copies and re-sends the request, so the client waits for the proxy's own work " +
  "on top of the upstream's. Connection reuse and streaming relays keep that overhead small.";

/** The fixed `chat.completion` answer. */
export const completionJson = JSON.stringify({
  id: ID,
  object: "chat.completion",
  created: CREATED,
  model: MODEL,
  choices: [
    {
      index: 0,
      message: { role: "assistant", content: answer, refusal: null, annotations: [] },
      logprobs: null,
      finish_reason: "stop",
    },
  ],
  usage,
  service_tier: "default",
  system_fingerprint: FINGERPRINT,
});

function chunk(delta: Record<string, unknown>, finishReason: string | null): Record<string, unknown> {
  return {
    id: ID,
    object: "chat.completion.chunk",
    created: CREATED,
    model: MODEL,
    service_tier: "default",
    system_fingerprint: FINGERPRINT,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

const words = answer.split(/(?<= )/);
const third = Math.ceil(words.length / 3);

/** The SSE events of a streamed answer, one string per event, without the usage chunk. */
export const streamEvents: string[] = [
  chunk({ role: "assistant", content: "", refusal: null }, null),
  chunk({ content: words.slice(0, third).join("") }, null),
  chunk({ content: words.slice(third, 2 * third).join("") }, null),
  chunk({ content: words.slice(2 * third).join("") }, null),
  chunk({}, "stop"),
].map((event) => `data: ${JSON.stringify(event)}\n\n`);

/** The final usage chunk sent when `stream_options.include_usage` is true. */
export const usageEvent = `data: ${JSON.stringify({
  id: ID,
  object: "chat.completion.chunk",
  created: CREATED,
  model: MODEL,
  service_tier: "default",
  system_fingerprint: FINGERPRINT,
  choices: [],
  usage,
})}\n\n`;

export const doneEvent = "data: [DONE]\n\n";

/** A streamed Responses API request (`POST /v1/responses`). */
export const responsesStreamBody = JSON.stringify({
  model: "gpt-4o-mini",
  input: "Explain in two sentences why a reverse proxy adds latency.",
  stream: true,
});

const RESPONSE_ID = "resp_bench000000000000000000000000";
const fifth = Math.ceil(words.length / 5);
const response = (status: string, extra: Record<string, unknown>): Record<string, unknown> => ({
  id: RESPONSE_ID,
  object: "response",
  created_at: CREATED,
  status,
  model: MODEL,
  ...extra,
});
const typed = (type: string, data: Record<string, unknown>, sequence: number): string =>
  `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence, ...data })}\n\n`;

/** The typed events of a streamed Responses answer: created, five text deltas, completed with usage. */
export const responsesEvents: string[] = [
  typed("response.created", { response: response("in_progress", { output: [], usage: null }) }, 0),
  ...Array.from({ length: 5 }, (_, i) =>
    typed("response.output_text.delta", { item_id: "msg_bench", output_index: 0, content_index: 0, delta: words.slice(i * fifth, (i + 1) * fifth).join("") }, i + 1),
  ),
  typed(
    "response.completed",
    {
      response: response("completed", {
        output: [{ id: "msg_bench", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: answer, annotations: [] }] }],
        usage: { input_tokens: 31, output_tokens: 42, total_tokens: 73, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
      }),
    },
    6,
  ),
];

/** The small answer of the bench upstream to an upload (`POST /v1/files`), with the bytes it read. */
export const fileJson = (bytes: number): string =>
  JSON.stringify({ id: "file-bench", object: "file", bytes, created_at: CREATED, filename: "bench.jsonl", purpose: "batch" });

const ANTHROPIC_MODEL = "claude-haiku-4-5-20251001";
const MESSAGE_ID = "msg_bench000000000000000000";
const anthropicUsage = { input_tokens: 31, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 42 };

/** The same answer as an Anthropic Messages API message (`POST /v1/messages`). */
export const anthropicMessageJson = JSON.stringify({
  id: MESSAGE_ID,
  type: "message",
  role: "assistant",
  model: ANTHROPIC_MODEL,
  content: [{ type: "text", text: answer }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: anthropicUsage,
});

const anthropicEvent = (type: string, data: Record<string, unknown>): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** The same answer streamed as the Messages API does: typed events, three text deltas, a ping. */
export const anthropicStreamEvents: string[] = [
  anthropicEvent("message_start", {
    message: { id: MESSAGE_ID, type: "message", role: "assistant", model: ANTHROPIC_MODEL, content: [], stop_reason: null, stop_sequence: null, usage: { ...anthropicUsage, output_tokens: 1 } },
  }),
  anthropicEvent("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
  anthropicEvent("ping", {}),
  anthropicEvent("content_block_delta", { index: 0, delta: { type: "text_delta", text: words.slice(0, third).join("") } }),
  anthropicEvent("content_block_delta", { index: 0, delta: { type: "text_delta", text: words.slice(third, 2 * third).join("") } }),
  anthropicEvent("content_block_delta", { index: 0, delta: { type: "text_delta", text: words.slice(2 * third).join("") } }),
  anthropicEvent("content_block_stop", { index: 0 }),
  anthropicEvent("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 42 } }),
  anthropicEvent("message_stop", {}),
];
