import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import type { LLMock } from "@copilotkit/aimock";
import OpenAI, { toFile } from "openai";
import { OpenAIRealtimeWS } from "openai/realtime/ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { openaiContractProblems } from "./support/contract.ts";
import { startGateway, startUpstream, storedLog, UPSTREAM_KEY, type RunningGateway } from "./support/harness.ts";
import { startRecordingUpstream, type Answer, type ReceivedRequest, type RecordingUpstream } from "./support/recording-upstream.ts";

/**
 * Contract tests: every JSON (or server-sent events) answer of the OpenAI operations the gateway
 * serves, requested with the official client through the gateway, is checked against the schema
 * the official OpenAI document gives for that operation's 200 answer, and against what the
 * upstream sent (so a failure is the gateway's, not the mock's).
 */

let gateway: RunningGateway;
let upstream: LLMock;
let recorder: RecordingUpstream;
let aimockTee: Tee;
let recorderTee: Tee;
let realtimeUpstream: RealtimeUpstream;

/** One exchange as the upstream answered it. */
interface Exchange {
  method: string;
  path: string;
  contentType: string;
  body: string;
}

/** A loopback proxy in front of an upstream that keeps every answer the upstream gave, byte for byte. */
interface Tee {
  url: string;
  exchanges: Exchange[];
  close(): Promise<void>;
}

async function startTee(target: string): Promise<Tee> {
  const exchanges: Exchange[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([name, value]) => typeof value === "string" && !["host", "connection", "content-length", "transfer-encoding", "keep-alive"].includes(name)),
      ) as Record<string, string>;
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      const answer = await fetch(`${target}${req.url!.replace(/^\/v1/, "")}`, { method: req.method, headers, body });
      const text = Buffer.from(await answer.arrayBuffer());
      const contentType = answer.headers.get("content-type") ?? "";
      exchanges.push({ method: req.method!, path: req.url!, contentType, body: text.toString("utf8") });
      res.writeHead(answer.status, contentType ? { "content-type": contentType } : {});
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    exchanges,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The `data:` payloads of a server-sent event stream, parsed, without the `[DONE]` marker. */
function sseData(text: string): unknown[] {
  return text
    .split(/\r?\n\r?\n/)
    .map((event) => event.split(/\r?\n/).filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trimStart()).join("\n"))
    .filter((data) => data !== "" && data !== "[DONE]")
    .map((data) => JSON.parse(data) as unknown);
}

function sse(events: Array<{ type: string } & Record<string, unknown>>): Answer {
  return { headers: { "content-type": "text/event-stream" }, body: events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join("") };
}

// Answers of the recording upstream, for what aimock does not serve (or serves in a shape the
// official document does not allow): the official examples of the reference document, completed
// with the fields their schemas require where the examples leave them out.

const fileCounts = { in_progress: 0, completed: 1, failed: 0, cancelled: 0, total: 1 };
const vectorStore = { id: "vs_abc123", object: "vector_store", created_at: 1699061776, name: "Support FAQ", description: null, usage_bytes: 139920, file_counts: fileCounts, status: "completed", last_active_at: 1699061776, metadata: {} };
const vectorStoreFile = { id: "file-abc123", object: "vector_store.file", created_at: 1699061776, usage_bytes: 1234, vector_store_id: "vs_abc123", status: "completed", last_error: null, attributes: { team: "a" } };
// The official example says `vector_store.file_batch`; the schema's (and the API's) object is `vector_store.files_batch`.
const fileBatch = { id: "vsfb_abc123", object: "vector_store.files_batch", created_at: 1699061776, vector_store_id: "vs_abc123", status: "in_progress", file_counts: fileCounts };
const list = <T extends { id: string }>(data: T[]) => ({ object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: false });
const video = (fields: Record<string, unknown> = {}) => ({
  id: "video_123", object: "video", model: "sora-2", status: "completed", progress: 100, created_at: 1712697600, completed_at: 1712697700, expires_at: 1712784100,
  prompt: "a calico cat", size: "1024x1792", seconds: "8", remixed_from_video_id: null, error: null, ...fields,
});
const fineTuningJob = (status: string) => ({
  object: "fine_tuning.job", id: "ftjob-abc123", model: "gpt-4o-mini-2024-07-18", created_at: 1721764800, finished_at: null, fine_tuned_model: null, organization_id: "org-123",
  result_files: [], status, validation_file: "file-abc123", training_file: "file-abc123", error: null, hyperparameters: { n_epochs: "auto", batch_size: "auto", learning_rate_multiplier: "auto" },
  trained_tokens: null, seed: 42,
});
const upload = (status: string, file: object | null = null) => ({ id: "upload_abc123", object: "upload", bytes: 8, created_at: 1719184911, filename: "training_examples.jsonl", purpose: "fine-tune", status, expires_at: 1719188511, file });
const responseObject = (status: string) => ({
  id: "resp_67cb71b351908190a308f3859487620d06981a8637e6bc44", object: "response", created_at: 1741386163, status, completed_at: status === "completed" ? 1741386164 : null, error: null,
  incomplete_details: null, instructions: null, max_output_tokens: null, model: "gpt-4o-2024-08-06",
  output: [{ type: "message", id: "msg_67cb71b3c2b0819084d481baaaf148f206981a8637e6bc44", status: "completed", role: "assistant", content: [{ type: "output_text", text: "Silent circuits hum.", annotations: [], logprobs: [] }] }],
  parallel_tool_calls: true, previous_response_id: null, reasoning: { effort: null, summary: null }, store: true, temperature: 1, text: { format: { type: "text" } }, tool_choice: "auto", tools: [], top_p: 1,
  truncation: "disabled", usage: { input_tokens: 32, input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 }, output_tokens: 18, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 50 }, metadata: {},
});
/** A Responses stream as the API sends it: typed events with sequence numbers, no `[DONE]`, ending at `response.completed`. */
function responseStream(): Answer {
  const done = responseObject("completed");
  const message = done.output[0]!;
  const part = message.content[0]!;
  const at = { item_id: message.id, output_index: 0 };
  return sse([
    { type: "response.created", response: { ...responseObject("in_progress"), output: [], usage: undefined } },
    { type: "response.in_progress", response: { ...responseObject("in_progress"), output: [], usage: undefined } },
    { type: "response.output_item.added", output_index: 0, item: { ...message, status: "in_progress", content: [] } },
    { type: "response.content_part.added", ...at, content_index: 0, part: { ...part, text: "" } },
    { type: "response.output_text.delta", ...at, content_index: 0, delta: part.text, logprobs: [] },
    { type: "response.output_text.done", ...at, content_index: 0, text: part.text, logprobs: [] },
    { type: "response.content_part.done", ...at, content_index: 0, part },
    { type: "response.output_item.done", output_index: 0, item: message },
    { type: "response.completed", response: done },
  ].map((event, sequence_number) => ({ ...event, sequence_number })));
}
const transcriptDeltas = ["I see", " skies", " of blue."];
const imageEvent = { created_at: 1589478378, size: "1024x1024", quality: "low", background: "opaque", output_format: "png" };

const RECORDED: Array<[method: string, path: RegExp, answer: (request: ReceivedRequest) => Answer | object]> = [
  ["POST", /^\/v1\/completions$/, () => ({ id: "cmpl-uqkvlQyYK7bGYrRHQ0eXlWi7", object: "text_completion", created: 1589478378, model: "gpt-3.5-turbo-instruct", system_fingerprint: "fp_44709d6fcb", choices: [{ text: "\n\nThis is indeed a test", index: 0, logprobs: null, finish_reason: "length" }], usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 } })],
  ["POST", /^\/v1\/responses$/, (request) => (JSON.parse(request.body.toString()).stream ? responseStream() : responseObject("completed"))],
  // The official stream: `data:` lines only, ending at `transcript.text.done` with no `[DONE]`.
  ["POST", /^\/v1\/audio\/transcriptions$/, () => ({
    headers: { "content-type": "text/event-stream" },
    body: [...transcriptDeltas.map((delta) => ({ type: "transcript.text.delta", delta })), { type: "transcript.text.done", text: transcriptDeltas.join(""), usage: { type: "tokens", input_tokens: 14, input_token_details: { text_tokens: 0, audio_tokens: 14 }, output_tokens: 5, total_tokens: 19 } }]
      .map((event) => `data: ${JSON.stringify(event)}\n\n`).join(""),
  })],
  ["POST", /^\/v1\/images\/edits$/, () => sse([
    { type: "image_edit.partial_image", b64_json: "cGFydGlhbA==", partial_image_index: 0, ...imageEvent },
    { type: "image_edit.completed", b64_json: "ZmluYWw=", ...imageEvent, usage: { total_tokens: 100, input_tokens: 50, output_tokens: 50, input_tokens_details: { text_tokens: 10, image_tokens: 40 } } },
  ])],
  ["POST", /^\/v1\/images\/variations$/, () => ({ created: 1589478378, data: [{ url: "https://images.example/1.png" }, { url: "https://images.example/2.png" }] })],
  ["POST", /^\/v1\/images\/generations$/, () => sse([
    { type: "image_generation.partial_image", b64_json: "cGFydGlhbA==", partial_image_index: 0, ...imageEvent },
    { type: "image_generation.completed", b64_json: "ZmluYWw=", ...imageEvent, usage: { total_tokens: 100, input_tokens: 50, output_tokens: 50, input_tokens_details: { text_tokens: 10, image_tokens: 40 } } },
  ])],
  ["POST", /^\/v1\/audio\/speech$/, () => sse([
    { type: "speech.audio.delta", audio: Buffer.from("audio bytes").toString("base64") },
    { type: "speech.audio.done", usage: { input_tokens: 14, output_tokens: 101, total_tokens: 115 } },
  ])],
  ["GET", /^\/v1\/responses\/[^/]+$/, () => responseObject("completed")],
  ["POST", /^\/v1\/responses\/[^/]+\/cancel$/, () => responseObject("cancelled")],
  ["GET", /^\/v1\/responses\/[^/]+\/input_items/, () => list([{ id: "msg_abc123", type: "message", role: "user", status: "completed", content: [{ type: "input_text", text: "Tell me a three sentence bedtime story about a unicorn." }] }])],
  ["POST", /^\/v1\/uploads$/, () => upload("pending")],
  ["POST", /^\/v1\/uploads\/[^/]+\/parts$/, () => ({ id: "part_def456", object: "upload.part", created_at: 1719185911, upload_id: "upload_abc123" })],
  ["POST", /^\/v1\/uploads\/[^/]+\/complete$/, () => upload("completed", { id: "file-xyz321", object: "file", bytes: 8, created_at: 1719186911, expires_at: 1719127296, filename: "training_examples.jsonl", purpose: "fine-tune", status: "processed" })],
  ["POST", /^\/v1\/uploads\/[^/]+\/cancel$/, () => upload("cancelled")],
  ["GET", /^\/v1\/fine_tuning\/jobs\/[^/]+\/checkpoints/, () => list([{ object: "fine_tuning.job.checkpoint", id: "ftckpt_zc4Q7MP6XxulcVzj4MZdwsAB", created_at: 1721764867, fine_tuned_model_checkpoint: "ft:gpt-4o-mini-2024-07-18:my-org:custom-suffix:96olL566:ckpt-step-2000", metrics: { full_valid_loss: 0.134, full_valid_mean_token_accuracy: 0.874 }, fine_tuning_job_id: "ftjob-abc123", step_number: 2000 }])],
  // The official example answers `paused`, which FineTuningJob's `status` does not list: a listed status stands in.
  ["POST", /^\/v1\/fine_tuning\/jobs\/[^/]+\/pause$/, () => fineTuningJob("queued")],
  ["POST", /^\/v1\/fine_tuning\/jobs\/[^/]+\/resume$/, () => fineTuningJob("running")],
  ["GET", /^\/v1\/models\/[^/]+$/, () => ({ id: "gpt-4o-mini", object: "model", created: 1686935002, owned_by: "openai" })],
  ["DELETE", /^\/v1\/models\/[^/]+$/, () => ({ id: "ft:gpt-4o-mini:acemeco:suffix:abc123", object: "model", deleted: true })],
  ["POST", /^\/v1\/videos$/, () => video({ status: "queued", progress: 0, completed_at: null, expires_at: null })],
  ["GET", /^\/v1\/videos$/, () => list([video()])],
  ["GET", /^\/v1\/videos\/[^/]+$/, () => video()],
  ["DELETE", /^\/v1\/videos\/[^/]+$/, () => ({ id: "video_123", object: "video.deleted", deleted: true })],
  ["POST", /^\/v1\/videos\/[^/]+\/remix$/, () => video({ id: "video_456", status: "queued", progress: 0, completed_at: null, expires_at: null, remixed_from_video_id: "video_123" })],
  ["POST", /^\/v1\/vector_stores$/, () => vectorStore],
  ["GET", /^\/v1\/vector_stores$/, () => list([vectorStore])],
  ["GET", /^\/v1\/vector_stores\/[^/]+$/, () => vectorStore],
  ["POST", /^\/v1\/vector_stores\/[^/]+$/, () => ({ ...vectorStore, name: "Support FAQ v2" })],
  ["DELETE", /^\/v1\/vector_stores\/[^/]+$/, () => ({ id: "vs_abc123", object: "vector_store.deleted", deleted: true })],
  ["POST", /^\/v1\/vector_stores\/[^/]+\/search$/, () => ({ object: "vector_store.search_results.page", search_query: ["What is the return policy?"], data: [{ file_id: "file_123", filename: "document.pdf", score: 0.95, attributes: { author: "John Doe" }, content: [{ type: "text", text: "Relevant chunk" }] }], has_more: false, next_page: null })],
  ["GET", /^\/v1\/vector_stores\/[^/]+\/files$/, () => list([vectorStoreFile])],
  ["POST", /^\/v1\/vector_stores\/[^/]+\/files$/, () => vectorStoreFile],
  ["GET", /^\/v1\/vector_stores\/[^/]+\/files\/[^/]+$/, () => vectorStoreFile],
  ["POST", /^\/v1\/vector_stores\/[^/]+\/files\/[^/]+$/, () => ({ ...vectorStoreFile, attributes: { team: "b" } })],
  ["DELETE", /^\/v1\/vector_stores\/[^/]+\/files\/[^/]+$/, () => ({ id: "file-abc123", object: "vector_store.file.deleted", deleted: true })],
  ["GET", /^\/v1\/vector_stores\/[^/]+\/files\/[^/]+\/content$/, () => ({ object: "vector_store.file_content.page", data: [{ type: "text", text: "Relevant chunk" }], has_more: false, next_page: null })],
  ["POST", /^\/v1\/vector_stores\/[^/]+\/file_batches$/, () => fileBatch],
  ["GET", /^\/v1\/vector_stores\/[^/]+\/file_batches\/[^/]+$/, () => fileBatch],
  ["POST", /^\/v1\/vector_stores\/[^/]+\/file_batches\/[^/]+\/cancel$/, () => ({ ...fileBatch, status: "cancelled" })],
  ["GET", /^\/v1\/vector_stores\/[^/]+\/file_batches\/[^/]+\/files$/, () => list([vectorStoreFile])],
];

function recordedAnswer(request: ReceivedRequest): Answer | object {
  const path = request.path.split("?")[0]!;
  const found = RECORDED.find(([method, pattern]) => method === request.method && pattern.test(path));
  return found ? found[2](request) : { status: 404, body: `no recorded answer for ${request.method} ${path}` };
}

// Realtime: aimock's `session.created`/`session.updated` carry the beta session shape
// (`modalities`, null audio formats), its `response.created` a null `status_details`/`usage`,
// and its content parts `output_text` where the schema has `text`: none conforms. A WebSocket
// upstream plays the official examples instead (their nulls, which the schemas do not allow, left out).
const realtimeSession = {
  type: "realtime", object: "realtime.session", id: "sess_C9G5QPteg4UIbotdKLoYQ", model: "gpt-realtime", output_modalities: ["text"], instructions: "Be brief.", tools: [], tool_choice: "auto",
  max_output_tokens: "inf", tracing: null, prompt: null, expires_at: 1756324625,
  audio: {
    input: { format: { type: "audio/pcm", rate: 24000 }, turn_detection: { type: "server_vad", threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 200, idle_timeout_ms: null, create_response: true, interrupt_response: true } },
    output: { format: { type: "audio/pcm", rate: 24000 }, voice: "marin", speed: 1 },
  },
};
const realtimeItem = { id: "item_2", object: "realtime.item", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Hello back" }] };
const realtimeResponse = { object: "realtime.response", id: "resp_1", status: "in_progress", output: [], conversation_id: "conv_1", output_modalities: ["text"], max_output_tokens: "inf", audio: { output: { format: { type: "audio/pcm", rate: 24000 }, voice: "marin" } }, metadata: null };
const at = { response_id: "resp_1", item_id: "item_2", output_index: 0, content_index: 0 };
/** The session's server events in order, each with the schema it must match: on open, then per client event. */
const REALTIME_EVENTS: Array<[schema: string, event: { type: string } & Record<string, unknown>, after: string]> = [
  ["RealtimeServerEventSessionCreated", { type: "session.created", event_id: "event_1", session: realtimeSession }, "open"],
  ["RealtimeServerEventSessionUpdated", { type: "session.updated", event_id: "event_2", session: realtimeSession }, "session.update"],
  ["RealtimeServerEventConversationItemAdded", { type: "conversation.item.added", event_id: "event_3", previous_item_id: null, item: { id: "item_1", object: "realtime.item", type: "message", role: "user", status: "completed", content: [{ type: "input_text", text: "contract hello" }] } }, "conversation.item.create"],
  ["RealtimeServerEventConversationItemDone", { type: "conversation.item.done", event_id: "event_4", previous_item_id: null, item: { id: "item_1", object: "realtime.item", type: "message", role: "user", status: "completed", content: [{ type: "input_text", text: "contract hello" }] } }, "conversation.item.create"],
  ["RealtimeServerEventResponseCreated", { type: "response.created", event_id: "event_5", response: realtimeResponse }, "response.create"],
  ["RealtimeServerEventResponseOutputItemAdded", { type: "response.output_item.added", event_id: "event_6", response_id: "resp_1", output_index: 0, item: { ...realtimeItem, status: "in_progress", content: [] } }, "response.create"],
  ["RealtimeServerEventResponseContentPartAdded", { type: "response.content_part.added", event_id: "event_7", ...at, part: { type: "text", text: "" } }, "response.create"],
  ["RealtimeServerEventResponseTextDelta", { type: "response.output_text.delta", event_id: "event_8", ...at, delta: "Hello back" }, "response.create"],
  ["RealtimeServerEventResponseTextDone", { type: "response.output_text.done", event_id: "event_9", ...at, text: "Hello back" }, "response.create"],
  ["RealtimeServerEventResponseContentPartDone", { type: "response.content_part.done", event_id: "event_10", ...at, part: { type: "text", text: "Hello back" } }, "response.create"],
  ["RealtimeServerEventResponseOutputItemDone", { type: "response.output_item.done", event_id: "event_11", response_id: "resp_1", output_index: 0, item: realtimeItem }, "response.create"],
  ["RealtimeServerEventConversationItemDone", { type: "conversation.item.done", event_id: "event_12", previous_item_id: "item_1", item: realtimeItem }, "response.create"],
  ["RealtimeServerEventResponseDone", {
    type: "response.done", event_id: "event_13",
    response: { ...realtimeResponse, status: "completed", output: [realtimeItem], usage: { total_tokens: 30, input_tokens: 20, output_tokens: 10, input_token_details: { text_tokens: 20, audio_tokens: 0, cached_tokens: 0 }, output_token_details: { text_tokens: 10, audio_tokens: 0 } } },
  }, "response.create"],
];

interface RealtimeUpstream {
  url: string;
  sent: unknown[];
  close(): Promise<void>;
}

/** A WebSocket upstream that answers each client event with the official server events listed for it. */
async function startRealtimeUpstream(): Promise<RealtimeUpstream> {
  const sent: unknown[] = [];
  const server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  server.on("connection", (socket) => {
    const play = (after: string) => {
      for (const [, event, when] of REALTIME_EVENTS) {
        if (when !== after) continue;
        sent.push(event);
        socket.send(JSON.stringify(event));
      }
    };
    socket.on("message", (data) => play((JSON.parse(data.toString()) as { type: string }).type));
    play("open");
  });
  await new Promise<void>((resolve) => server.once("listening", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    sent,
    close: async () => {
      for (const client of server.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type Call = (client: OpenAI) => Promise<Response>;

/** One operation: its official operationId, the gateway's log route, the official schema of its 200 answer, and how the official client calls it. */
interface Row {
  operation: string;
  route: string;
  schema: string;
  upstream: "aimock" | "recorder";
  /** The answer is server-sent events: each event is checked against the schema. */
  events?: boolean;
  call: Call;
}

const wav = () => toFile(Buffer.concat([Buffer.from("RIFF"), Buffer.alloc(2000, 7)]), "meeting.wav", { type: "audio/wav" });
const png = () => toFile(Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(500, 1)]), "harbour.png", { type: "image/png" });
const jsonl = (purpose: "batch" | "fine-tune") =>
  toFile(Buffer.from(`${JSON.stringify(purpose === "batch" ? { custom_id: "1", method: "POST", url: "/v1/chat/completions", body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] } } : { messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }] })}\n`), "input.jsonl");
const fileId = async (client: OpenAI, purpose: "batch" | "fine-tune") => (await client.files.create({ file: await jsonl(purpose), purpose })).id;
const batch = async (client: OpenAI) => (await client.batches.create({ input_file_id: await fileId(client, "batch"), endpoint: "/v1/chat/completions", completion_window: "24h" })).id;
const job = async (client: OpenAI) => (await client.fineTuning.jobs.create({ model: "gpt-4o-mini", training_file: await fileId(client, "fine-tune") })).id;

const ROWS: Row[] = [
  // Served by aimock.
  { operation: "createChatCompletion", route: "createChatCompletion", schema: "CreateChatCompletionResponse", upstream: "aimock", call: (c) => c.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "contract hello" }] }).asResponse() },
  { operation: "createChatCompletion (stream)", route: "createChatCompletion", schema: "CreateChatCompletionStreamResponse", upstream: "aimock", events: true, call: (c) => c.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "contract hello" }], stream: true, stream_options: { include_usage: true } }).asResponse() },
  { operation: "createEmbedding", route: "createEmbedding", schema: "CreateEmbeddingResponse", upstream: "aimock", call: (c) => c.embeddings.create({ model: "text-embedding-3-small", input: "contract fox" }).asResponse() },
  { operation: "createModeration", route: "createModeration", schema: "CreateModerationResponse", upstream: "aimock", call: (c) => c.moderations.create({ model: "omni-moderation-latest", input: "contract harmless" }).asResponse() },
  { operation: "createImage", route: "createImage", schema: "ImagesResponse", upstream: "aimock", call: (c) => c.images.generate({ model: "dall-e-3", prompt: "contract lighthouse" }).asResponse() },
  { operation: "createImageEdit", route: "createImageEdit", schema: "ImagesResponse", upstream: "aimock", call: async (c) => c.images.edit({ model: "dall-e-2", image: await png(), prompt: "contract boat" }).asResponse() },
  { operation: "createTranscription (json)", route: "createTranscription", schema: "CreateTranscriptionResponseJson", upstream: "aimock", call: async (c) => c.audio.transcriptions.create({ model: "whisper-1", file: await wav() }).asResponse() },
  { operation: "createTranscription (verbose_json)", route: "createTranscription", schema: "CreateTranscriptionResponseVerboseJson", upstream: "aimock", call: async (c) => c.audio.transcriptions.create({ model: "whisper-1", file: await wav(), response_format: "verbose_json" }).asResponse() },
  { operation: "createTranslation (json)", route: "createTranslation", schema: "CreateTranslationResponseJson", upstream: "aimock", call: async (c) => c.audio.translations.create({ model: "whisper-1", file: await wav() }).asResponse() },
  { operation: "createTranslation (verbose_json)", route: "createTranslation", schema: "CreateTranslationResponseVerboseJson", upstream: "aimock", call: async (c) => c.audio.translations.create({ model: "whisper-1", file: await wav(), response_format: "verbose_json" }).asResponse() },
  { operation: "createFile", route: "createFile", schema: "OpenAIFile", upstream: "aimock", call: async (c) => c.files.create({ file: await jsonl("batch"), purpose: "batch" }).asResponse() },
  { operation: "listFiles", route: "listFiles", schema: "ListFilesResponse", upstream: "aimock", call: async (c) => (await fileId(c, "batch"), c.files.list({ limit: 5 }).asResponse()) },
  { operation: "retrieveFile", route: "retrieveFile", schema: "OpenAIFile", upstream: "aimock", call: async (c) => c.files.retrieve(await fileId(c, "batch")).asResponse() },
  { operation: "deleteFile", route: "deleteFile", schema: "DeleteFileResponse", upstream: "aimock", call: async (c) => c.files.delete(await fileId(c, "batch")).asResponse() },
  { operation: "createBatch", route: "createBatch", schema: "Batch", upstream: "aimock", call: async (c) => c.batches.create({ input_file_id: await fileId(c, "batch"), endpoint: "/v1/chat/completions", completion_window: "24h" }).asResponse() },
  { operation: "listBatches", route: "listBatches", schema: "ListBatchesResponse", upstream: "aimock", call: async (c) => (await batch(c), c.batches.list({ limit: 5 }).asResponse()) },
  { operation: "retrieveBatch", route: "retrieveBatch", schema: "Batch", upstream: "aimock", call: async (c) => c.batches.retrieve(await batch(c)).asResponse() },
  { operation: "cancelBatch", route: "cancelBatch", schema: "Batch", upstream: "aimock", call: async (c) => c.batches.cancel(await batch(c)).asResponse() },
  { operation: "createFineTuningJob", route: "createFineTuningJob", schema: "FineTuningJob", upstream: "aimock", call: async (c) => c.fineTuning.jobs.create({ model: "gpt-4o-mini", training_file: await fileId(c, "fine-tune") }).asResponse() },
  { operation: "listPaginatedFineTuningJobs", route: "listFineTuningJobs", schema: "ListPaginatedFineTuningJobsResponse", upstream: "aimock", call: async (c) => (await job(c), c.fineTuning.jobs.list({ limit: 5 }).asResponse()) },
  { operation: "retrieveFineTuningJob", route: "retrieveFineTuningJob", schema: "FineTuningJob", upstream: "aimock", call: async (c) => c.fineTuning.jobs.retrieve(await job(c)).asResponse() },
  { operation: "listFineTuningEvents", route: "listFineTuningEvents", schema: "ListFineTuningJobEventsResponse", upstream: "aimock", call: async (c) => c.fineTuning.jobs.listEvents(await job(c), { limit: 5 }).asResponse() },
  { operation: "cancelFineTuningJob", route: "cancelFineTuningJob", schema: "FineTuningJob", upstream: "aimock", call: async (c) => c.fineTuning.jobs.cancel(await job(c)).asResponse() },
  { operation: "listModels", route: "listModels", schema: "ListModelsResponse", upstream: "aimock", call: (c) => c.models.list().asResponse() },

  // Not served by aimock: answered by the recording upstream with the official examples.
  // aimock's response objects and stream events lack fields the schemas require (`tools`,
  // `parallel_tool_calls`, `sequence_number`, …).
  { operation: "createResponse", route: "createResponse", schema: "Response", upstream: "recorder", call: (c) => c.responses.create({ model: "gpt-4o-mini", input: "contract hello" }).asResponse() },
  { operation: "createResponse (stream)", route: "createResponse", schema: "ResponseStreamEvent", upstream: "recorder", events: true, call: (c) => c.responses.create({ model: "gpt-4o-mini", input: "contract hello", stream: true }).asResponse() },
  // aimock ends its transcription stream with `[DONE]`, which the official stream does not send.
  { operation: "createTranscription (stream)", route: "createTranscription", schema: "CreateTranscriptionResponseStreamEvent", upstream: "recorder", events: true, call: async (c) => c.audio.transcriptions.create({ model: "gpt-4o-transcribe", file: await wav(), stream: true }).asResponse() },
  { operation: "createImageEdit (stream)", route: "createImageEdit", schema: "ImageEditStreamEvent", upstream: "recorder", events: true, call: async (c) => c.images.edit({ model: "gpt-image-1", image: await png(), prompt: "contract heron", stream: true, partial_images: 1 }).asResponse() },
  { operation: "createCompletion", route: "createCompletion", schema: "CreateCompletionResponse", upstream: "recorder", call: (c) => c.completions.create({ model: "gpt-3.5-turbo-instruct", prompt: "Say this is a test" }).asResponse() },
  // aimock answers image variations with a 404 (the endpoint is being retired upstream).
  { operation: "createImageVariation", route: "createImageVariation", schema: "ImagesResponse", upstream: "recorder", call: async (c) => c.images.createVariation({ model: "dall-e-2", image: await png(), n: 2 }).asResponse() },
  { operation: "createImage (stream)", route: "createImage", schema: "ImageGenStreamEvent", upstream: "recorder", events: true, call: (c) => c.images.generate({ model: "gpt-image-1", prompt: "contract otter", stream: true, partial_images: 1 }).asResponse() },
  { operation: "createSpeech (sse)", route: "createSpeech", schema: "CreateSpeechResponseStreamEvent", upstream: "recorder", events: true, call: (c) => c.audio.speech.create({ model: "gpt-4o-mini-tts", input: "contract speech", voice: "alloy", stream_format: "sse" }).asResponse() },
  { operation: "getResponse", route: "getResponse", schema: "Response", upstream: "recorder", call: (c) => c.responses.retrieve("resp_67cb71b351908190a308f3859487620d06981a8637e6bc44").asResponse() },
  { operation: "cancelResponse", route: "cancelResponse", schema: "Response", upstream: "recorder", call: (c) => c.responses.cancel("resp_67cb71b351908190a308f3859487620d06981a8637e6bc44").asResponse() },
  { operation: "listInputItems", route: "listResponseInputItems", schema: "ResponseItemList", upstream: "recorder", call: (c) => c.responses.inputItems.list("resp_67cb71b351908190a308f3859487620d06981a8637e6bc44").asResponse() },
  { operation: "createUpload", route: "createUpload", schema: "Upload", upstream: "recorder", call: (c) => c.uploads.create({ filename: "training_examples.jsonl", purpose: "fine-tune", bytes: 8, mime_type: "text/jsonl" }).asResponse() },
  { operation: "addUploadPart", route: "addUploadPart", schema: "UploadPart", upstream: "recorder", call: async (c) => c.uploads.parts.create("upload_abc123", { data: await toFile(Buffer.from("{\"a\":1}\n"), "part") }).asResponse() },
  { operation: "completeUpload", route: "completeUpload", schema: "Upload", upstream: "recorder", call: (c) => c.uploads.complete("upload_abc123", { part_ids: ["part_def456"] }).asResponse() },
  { operation: "cancelUpload", route: "cancelUpload", schema: "Upload", upstream: "recorder", call: (c) => c.uploads.cancel("upload_abc123").asResponse() },
  { operation: "listFineTuningJobCheckpoints", route: "listFineTuningJobCheckpoints", schema: "ListFineTuningJobCheckpointsResponse", upstream: "recorder", call: (c) => c.fineTuning.jobs.checkpoints.list("ftjob-abc123").asResponse() },
  { operation: "pauseFineTuningJob", route: "pauseFineTuningJob", schema: "FineTuningJob", upstream: "recorder", call: (c) => c.fineTuning.jobs.pause("ftjob-abc123").asResponse() },
  { operation: "resumeFineTuningJob", route: "resumeFineTuningJob", schema: "FineTuningJob", upstream: "recorder", call: (c) => c.fineTuning.jobs.resume("ftjob-abc123").asResponse() },
  { operation: "retrieveModel", route: "retrieveModel", schema: "Model", upstream: "recorder", call: (c) => c.models.retrieve("gpt-4o-mini").asResponse() },
  // No route of its own: the pass-through carries it.
  { operation: "deleteModel", route: "passThrough", schema: "DeleteModelResponse", upstream: "recorder", call: (c) => c.models.delete("ft:gpt-4o-mini:acemeco:suffix:abc123").asResponse() },
  // aimock's video jobs take JSON only; the official client sends a multipart form.
  { operation: "createVideo", route: "createVideo", schema: "VideoResource", upstream: "recorder", call: (c) => c.videos.create({ model: "sora-2", prompt: "a calico cat", seconds: "8", size: "1024x1792" }).asResponse() },
  { operation: "ListVideos", route: "listVideos", schema: "VideoListResource", upstream: "recorder", call: (c) => c.videos.list({ limit: 5 }).asResponse() },
  { operation: "GetVideo", route: "retrieveVideo", schema: "VideoResource", upstream: "recorder", call: (c) => c.videos.retrieve("video_123").asResponse() },
  { operation: "DeleteVideo", route: "deleteVideo", schema: "DeletedVideoResource", upstream: "recorder", call: (c) => c.videos.delete("video_123").asResponse() },
  { operation: "CreateVideoRemix", route: "remixVideo", schema: "VideoResource", upstream: "recorder", call: (c) => c.videos.remix("video_123", { prompt: "now at night" }).asResponse() },
  { operation: "createVectorStore", route: "createVectorStore", schema: "VectorStoreObject", upstream: "recorder", call: (c) => c.vectorStores.create({ name: "Support FAQ" }).asResponse() },
  { operation: "listVectorStores", route: "listVectorStores", schema: "ListVectorStoresResponse", upstream: "recorder", call: (c) => c.vectorStores.list({ limit: 5 }).asResponse() },
  { operation: "getVectorStore", route: "getVectorStore", schema: "VectorStoreObject", upstream: "recorder", call: (c) => c.vectorStores.retrieve("vs_abc123").asResponse() },
  { operation: "modifyVectorStore", route: "modifyVectorStore", schema: "VectorStoreObject", upstream: "recorder", call: (c) => c.vectorStores.update("vs_abc123", { name: "Support FAQ v2" }).asResponse() },
  { operation: "deleteVectorStore", route: "deleteVectorStore", schema: "DeleteVectorStoreResponse", upstream: "recorder", call: (c) => c.vectorStores.delete("vs_abc123").asResponse() },
  { operation: "searchVectorStore", route: "searchVectorStore", schema: "VectorStoreSearchResultsPage", upstream: "recorder", call: (c) => c.vectorStores.search("vs_abc123", { query: "What is the return policy?" }).asResponse() },
  { operation: "listVectorStoreFiles", route: "listVectorStoreFiles", schema: "ListVectorStoreFilesResponse", upstream: "recorder", call: (c) => c.vectorStores.files.list("vs_abc123").asResponse() },
  { operation: "createVectorStoreFile", route: "createVectorStoreFile", schema: "VectorStoreFileObject", upstream: "recorder", call: (c) => c.vectorStores.files.create("vs_abc123", { file_id: "file-abc123", attributes: { team: "a" } }).asResponse() },
  { operation: "getVectorStoreFile", route: "getVectorStoreFile", schema: "VectorStoreFileObject", upstream: "recorder", call: (c) => c.vectorStores.files.retrieve("file-abc123", { vector_store_id: "vs_abc123" }).asResponse() },
  { operation: "updateVectorStoreFileAttributes", route: "updateVectorStoreFileAttributes", schema: "VectorStoreFileObject", upstream: "recorder", call: (c) => c.vectorStores.files.update("file-abc123", { vector_store_id: "vs_abc123", attributes: { team: "b" } }).asResponse() },
  { operation: "deleteVectorStoreFile", route: "deleteVectorStoreFile", schema: "DeleteVectorStoreFileResponse", upstream: "recorder", call: (c) => c.vectorStores.files.delete("file-abc123", { vector_store_id: "vs_abc123" }).asResponse() },
  { operation: "retrieveVectorStoreFileContent", route: "retrieveVectorStoreFileContent", schema: "VectorStoreFileContentResponse", upstream: "recorder", call: (c) => c.vectorStores.files.content("file-abc123", { vector_store_id: "vs_abc123" }).asResponse() },
  { operation: "createVectorStoreFileBatch", route: "createVectorStoreFileBatch", schema: "VectorStoreFileBatchObject", upstream: "recorder", call: (c) => c.vectorStores.fileBatches.create("vs_abc123", { file_ids: ["file-abc123"] }).asResponse() },
  { operation: "getVectorStoreFileBatch", route: "getVectorStoreFileBatch", schema: "VectorStoreFileBatchObject", upstream: "recorder", call: (c) => c.vectorStores.fileBatches.retrieve("vsfb_abc123", { vector_store_id: "vs_abc123" }).asResponse() },
  { operation: "cancelVectorStoreFileBatch", route: "cancelVectorStoreFileBatch", schema: "VectorStoreFileBatchObject", upstream: "recorder", call: (c) => c.vectorStores.fileBatches.cancel("vsfb_abc123", { vector_store_id: "vs_abc123" }).asResponse() },
  { operation: "listFilesInVectorStoreBatch", route: "listFilesInVectorStoreBatch", schema: "ListVectorStoreFilesResponse", upstream: "recorder", call: (c) => c.vectorStores.fileBatches.listFiles("vsfb_abc123", { vector_store_id: "vs_abc123" }).asResponse() },
];

const MODERATION_CATEGORIES = ["hate", "hate/threatening", "harassment", "harassment/threatening", "illicit", "illicit/violent", "self-harm", "self-harm/intent", "self-harm/instructions", "sexual", "sexual/minors", "violence", "violence/graphic"];
/** aimock's default result lacks `category_applied_input_types`: the fixture gives a whole one. */
const MODERATION = {
  flagged: false,
  categories: Object.fromEntries(MODERATION_CATEGORIES.map((name) => [name, false])),
  category_scores: Object.fromEntries(MODERATION_CATEGORIES.map((name) => [name, 0.0001])),
  category_applied_input_types: Object.fromEntries(MODERATION_CATEGORIES.map((name) => [name, ["text"]])),
};

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.onMessage("contract hello", { content: "Hello back", usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } });
  upstream.onEmbedding("contract fox", { embedding: [0.1, 0.2, 0.3] });
  upstream.onModerate("contract harmless", MODERATION);
  upstream.onImage("contract lighthouse", { images: [{ url: "https://images.example/1.png", revisedPrompt: "a lighthouse" }] });
  upstream.onImage("contract boat", { image: { b64Json: Buffer.from("edited").toString("base64") } });
  upstream.onTranscription({ transcription: { text: "hello from the recording" } });
  upstream.onTranslation({ transcription: { text: "hello in english" } });
  recorder = await startRecordingUpstream(recordedAnswer);
  aimockTee = await startTee(`${upstream.url}/v1`);
  recorderTee = await startTee(recorder.url);
  realtimeUpstream = await startRealtimeUpstream();
  // Compiling the official schemas blocks for seconds: done before any connection is open, so
  // none is left idle long enough to be reset mid-test.
  for (const schema of new Set([...ROWS.map((row) => row.schema), ...REALTIME_EVENTS.map(([name]) => name), "RealtimeServerEvent"])) openaiContractProblems(schema, {});
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway?.close();
  await aimockTee?.close();
  await recorderTee?.close();
  await realtimeUpstream?.close();
  await recorder?.close();
  await upstream?.stop();
});

function client(row: Row): OpenAI {
  const host = row.upstream === "aimock" ? aimockTee.url : recorderTee.url;
  return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: UPSTREAM_KEY, maxRetries: 0, defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": host } });
}

describe("the gateway's answers against the official OpenAI document", () => {
  it.each(ROWS.map((row) => [row.operation, row.schema, row] as const))("%s answers a conforming %s, relayed as the upstream sent it and logged", async (_operation, schema, row) => {
    const tee = row.upstream === "aimock" ? aimockTee : recorderTee;
    const response = await row.call(client(row));
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const sent = tee.exchanges.at(-1)!;
    if (row.events) {
      expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
      const events = sseData(text);
      expect(events.length).toBeGreaterThan(0);
      for (const event of events) expect(openaiContractProblems(schema, event), JSON.stringify(event)).toEqual([]);
      expect(events).toEqual(sseData(sent.body));
    } else {
      const body = JSON.parse(text) as unknown;
      expect(openaiContractProblems(schema, body), text).toEqual([]);
      expect(body).toEqual(JSON.parse(sent.body));
    }
    const logId = response.headers.get("x-gateway-log-id");
    expect(logId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(await storedLog(gateway, logId!)).toMatchObject({ route: row.route, provider: "openai", status: 200 });
  });

  it("realtime: every server event of a session conforms to its RealtimeServerEvent schema, relayed as the upstream sent it, and the session is logged", async () => {
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: UPSTREAM_KEY });
    const { hostname, port } = new URL(gateway.url);
    // The client always dials wss://; here the socket goes to the gateway's plain port.
    const createConnection = () => connect(Number(port), hostname);
    const headers = { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": realtimeUpstream.url };
    const realtime = new OpenAIRealtimeWS({ model: "gpt-realtime", options: { headers, createConnection } }, openai);
    let logId: string | undefined;
    realtime.socket.on("upgrade", (res) => (logId = res.headers["x-gateway-log-id"] as string | undefined));
    const received: Array<{ type: string }> = [];
    realtime.socket.on("message", (data, isBinary) => {
      if (!isBinary) received.push(JSON.parse(data.toString()) as { type: string });
    });
    const failed = new Promise<never>((_, reject) => realtime.on("error", reject));
    await Promise.race([new Promise((resolve) => realtime.socket.once("open", resolve)), failed]);
    const done = new Promise((resolve) => realtime.on("response.done", resolve));
    realtime.send({ type: "session.update", session: { type: "realtime", output_modalities: ["text"] } });
    realtime.send({ type: "conversation.item.create", item: { type: "message", role: "user", content: [{ type: "input_text", text: "contract hello" }] } });
    realtime.send({ type: "response.create" });
    await Promise.race([done, failed]);
    const closed = new Promise((resolve) => realtime.socket.once("close", resolve));
    realtime.close({ code: 1000, reason: "done" });
    await closed;

    expect(received.map((event) => event.type)).toEqual(REALTIME_EVENTS.map(([, event]) => event.type));
    for (const [index, event] of received.entries()) {
      const [schema] = REALTIME_EVENTS[index]!;
      expect(openaiContractProblems(schema, event), JSON.stringify(event)).toEqual([]);
      expect(openaiContractProblems("RealtimeServerEvent", event), JSON.stringify(event)).toEqual([]);
    }
    expect(received).toEqual(realtimeUpstream.sent);
    expect(logId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    let record: Awaited<ReturnType<typeof storedLog>> | undefined;
    for (let attempt = 0; attempt < 50 && !record; attempt++) record = await storedLog(gateway, logId!).catch(() => new Promise<undefined>((resolve) => setTimeout(resolve, 20)));
    expect(record).toMatchObject({ route: "createRealtimeSession", provider: "openai", model: "gpt-realtime", status: 101 });
  });
});
