import OpenAI, { toFile } from "openai";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type RunningGateway } from "./support/harness.ts";
import { startPrismMock, type PrismMock } from "./support/prism-mock.ts";

/**
 * A conformance run of our own, in the manner of the SDK's own resource tests: calls across the
 * resources of the official `openai` client, with required parameters only and with the
 * optional ones, each sent straight to a mock generated from OpenAI's own document (Prism, which
 * refuses a request the document does not allow with 422) and then through the gateway to the
 * same mock. Any call that succeeds direct and fails through the gateway is the gateway's doing:
 * a check stricter than OpenAI's, a header or body lost on the way, an answer not passed whole.
 */

const OPENAI_DOCUMENT = fileURLToPath(new URL("../../shared/reference/openai-openapi.yaml", import.meta.url));

let prism: PrismMock;
let gateway: RunningGateway;

beforeAll(async () => {
  [prism, gateway] = await Promise.all([startPrismMock(OPENAI_DOCUMENT), startGateway()]);
}, 300_000);

afterAll(async () => {
  await gateway?.close();
  await prism?.stop();
});

type Call = [name: string, run: (client: OpenAI) => Promise<unknown>];

const file = () => toFile(Buffer.from("hello"), "a.txt", { type: "text/plain" });
const image = () => toFile(Buffer.from([0x89, 0x50, 0x4e, 0x47]), "a.png", { type: "image/png" });
const audio = () => toFile(Buffer.from("RIFF0000WAVE"), "a.wav", { type: "audio/wav" });
const messages = [{ role: "user" as const, content: "Hello" }];

const CALLS: Call[] = [
  // Chat completions, and the stored ones.
  ["chat.completions.create (required)", (c) => c.chat.completions.create({ model: "gpt-4o", messages })],
  [
    "chat.completions.create (optional)",
    (c) =>
      c.chat.completions.create({
        model: "gpt-4o",
        messages: [{ role: "developer", content: "Be brief.", name: "name" }, ...messages],
        frequency_penalty: -2,
        logit_bias: { "50256": -100 },
        logprobs: true,
        top_logprobs: 0,
        max_completion_tokens: 0,
        max_tokens: 0,
        metadata: { foo: "string" },
        modalities: ["text"],
        n: 1,
        parallel_tool_calls: true,
        presence_penalty: -2,
        reasoning_effort: "low",
        response_format: { type: "text" },
        seed: -9007199254740991,
        service_tier: "auto",
        stop: "\n",
        store: true,
        temperature: 1,
        tool_choice: "none",
        tools: [{ type: "function", function: { name: "name", description: "description", parameters: { foo: "bar" }, strict: true } }],
        top_p: 1,
        user: "user-1234",
      }),
  ],
  ["chat.completions.retrieve", (c) => c.chat.completions.retrieve("completion_id")],
  ["chat.completions.update", (c) => c.chat.completions.update("completion_id", { metadata: { foo: "string" } })],
  ["chat.completions.list", (c) => c.chat.completions.list({ after: "after", limit: 0, metadata: { foo: "string" }, model: "model", order: "asc" })],
  ["chat.completions.delete", (c) => c.chat.completions.delete("completion_id")],
  ["chat.completions.messages.list", (c) => c.chat.completions.messages.list("completion_id", { after: "after", limit: 0, order: "asc" })],
  // Legacy completions, embeddings, moderations.
  ["completions.create (required)", (c) => c.completions.create({ model: "gpt-3.5-turbo-instruct", prompt: "This is a test." })],
  ["completions.create (optional)", (c) => c.completions.create({ model: "gpt-3.5-turbo-instruct", prompt: "This is a test.", best_of: 0, echo: true, frequency_penalty: -2, logprobs: 0, max_tokens: 16, n: 1, presence_penalty: -2, seed: 0, stop: "\n", suffix: "test.", temperature: 1, top_p: 1, user: "user-1234" })],
  ["embeddings.create (required)", (c) => c.embeddings.create({ model: "text-embedding-3-small", input: "The quick brown fox" })],
  ["embeddings.create (optional)", (c) => c.embeddings.create({ model: "text-embedding-3-small", input: "The quick brown fox", dimensions: 1, encoding_format: "float", user: "user-1234" })],
  ["moderations.create (required)", (c) => c.moderations.create({ input: "I want to kill them." })],
  ["moderations.create (optional)", (c) => c.moderations.create({ input: "I want to kill them.", model: "omni-moderation-latest" })],
  // Images and audio.
  ["images.generate (required)", (c) => c.images.generate({ prompt: "A cute baby sea otter" })],
  ["images.generate (optional)", (c) => c.images.generate({ prompt: "A cute baby sea otter", background: "transparent", model: "gpt-image-1", moderation: "low", n: 1, output_compression: 100, output_format: "png", quality: "medium", response_format: "url", size: "1024x1024", style: "vivid", user: "user-1234" })],
  ["images.generate (model null)", (c) => c.images.generate({ prompt: "A cute baby sea otter", model: null })],
  ["images.edit (required)", async (c) => c.images.edit({ image: await image(), prompt: "A cute baby sea otter wearing a beret" })],
  ["images.createVariation (required)", async (c) => c.images.createVariation({ image: await image() })],
  ["audio.speech.create", (c) => c.audio.speech.create({ input: "input", model: "tts-1", voice: "alloy" })],
  ["audio.transcriptions.create", async (c) => c.audio.transcriptions.create({ file: await audio(), model: "gpt-4o-transcribe" })],
  ["audio.translations.create", async (c) => c.audio.translations.create({ file: await audio(), model: "whisper-1" })],
  // Models.
  ["models.list", (c) => c.models.list()],
  ["models.retrieve", (c) => c.models.retrieve("gpt-4o-mini")],
  // Files and uploads.
  ["files.create", async (c) => c.files.create({ file: await file(), purpose: "assistants" })],
  ["files.list (required)", (c) => c.files.list()],
  ["files.list (optional)", (c) => c.files.list({ after: "after", limit: 0, order: "asc", purpose: "purpose" })],
  ["files.retrieve", (c) => c.files.retrieve("file_id")],
  ["files.delete", (c) => c.files.delete("file_id")],
  ["files.content", (c) => c.files.content("file_id")],
  ["uploads.create", (c) => c.uploads.create({ bytes: 0, filename: "filename", mime_type: "mime_type", purpose: "assistants" })],
  ["uploads.cancel", (c) => c.uploads.cancel("upload_abc123")],
  ["uploads.complete", (c) => c.uploads.complete("upload_abc123", { part_ids: ["string"], md5: "md5" })],
  ["uploads.parts.create", async (c) => c.uploads.parts.create("upload_abc123", { data: await file() })],
  // Batches and fine-tuning.
  ["batches.create", (c) => c.batches.create({ completion_window: "24h", endpoint: "/v1/responses", input_file_id: "input_file_id", metadata: { foo: "string" } })],
  ["batches.list", (c) => c.batches.list({ after: "after", limit: 0 })],
  ["batches.retrieve", (c) => c.batches.retrieve("batch_id")],
  ["batches.cancel", (c) => c.batches.cancel("batch_id")],
  ["fineTuning.jobs.create", (c) => c.fineTuning.jobs.create({ model: "gpt-4o-mini", training_file: "file-abc123" })],
  ["fineTuning.jobs.list", (c) => c.fineTuning.jobs.list({ after: "after", limit: 0, metadata: { foo: "string" } })],
  ["fineTuning.jobs.retrieve", (c) => c.fineTuning.jobs.retrieve("ft-AF1WoRqd3aJAHsqc9NY7iL8F")],
  ["fineTuning.jobs.cancel", (c) => c.fineTuning.jobs.cancel("ft-AF1WoRqd3aJAHsqc9NY7iL8F")],
  ["fineTuning.jobs.pause", (c) => c.fineTuning.jobs.pause("ft-AF1WoRqd3aJAHsqc9NY7iL8F")],
  ["fineTuning.jobs.resume", (c) => c.fineTuning.jobs.resume("ft-AF1WoRqd3aJAHsqc9NY7iL8F")],
  ["fineTuning.jobs.listEvents", (c) => c.fineTuning.jobs.listEvents("ft-AF1WoRqd3aJAHsqc9NY7iL8F", { after: "after", limit: 0 })],
  ["fineTuning.jobs.checkpoints.list", (c) => c.fineTuning.jobs.checkpoints.list("ft-AF1WoRqd3aJAHsqc9NY7iL8F", { after: "after", limit: 0 })],
  // Vector stores.
  ["vectorStores.create", (c) => c.vectorStores.create({ name: "name", metadata: { foo: "string" } })],
  ["vectorStores.list", (c) => c.vectorStores.list({ after: "after", before: "before", limit: 0, order: "asc" })],
  ["vectorStores.retrieve", (c) => c.vectorStores.retrieve("vector_store_id")],
  ["vectorStores.update", (c) => c.vectorStores.update("vector_store_id", { name: "name", metadata: { foo: "string" } })],
  ["vectorStores.delete", (c) => c.vectorStores.delete("vector_store_id")],
  ["vectorStores.search", (c) => c.vectorStores.search("vs_abc123", { query: "string", max_num_results: 1, rewrite_query: true })],
  ["vectorStores.files.create", (c) => c.vectorStores.files.create("vs_abc123", { file_id: "file_id", attributes: { foo: "string" } })],
  ["vectorStores.files.list", (c) => c.vectorStores.files.list("vector_store_id", { after: "after", before: "before", filter: "in_progress", limit: 0, order: "asc" })],
  ["vectorStores.files.retrieve", (c) => c.vectorStores.files.retrieve("file-abc123", { vector_store_id: "vs_abc123" })],
  ["vectorStores.files.update", (c) => c.vectorStores.files.update("file-abc123", { vector_store_id: "vs_abc123", attributes: { foo: "string" } })],
  ["vectorStores.files.delete", (c) => c.vectorStores.files.delete("file_id", { vector_store_id: "vector_store_id" })],
  ["vectorStores.fileBatches.create", (c) => c.vectorStores.fileBatches.create("vs_abc123", { file_ids: ["string"] })],
  ["vectorStores.fileBatches.retrieve", (c) => c.vectorStores.fileBatches.retrieve("vsfb_abc123", { vector_store_id: "vs_abc123" })],
  ["vectorStores.fileBatches.cancel", (c) => c.vectorStores.fileBatches.cancel("batch_id", { vector_store_id: "vector_store_id" })],
  ["vectorStores.fileBatches.listFiles", (c) => c.vectorStores.fileBatches.listFiles("batch_id", { vector_store_id: "vector_store_id", after: "after", before: "before", filter: "in_progress", limit: 0, order: "asc" })],
  // Responses.
  ["responses.create (empty)", (c) => c.responses.create({})],
  ["responses.create (stored prompt)", (c) => c.responses.create({ prompt: { id: "pmpt_abc123", variables: { city: "Paris" }, version: "2" } })],
  ["responses.create (optional)", (c) => c.responses.create({ model: "gpt-4o", input: "string", instructions: "instructions", max_output_tokens: 0, metadata: { foo: "string" }, parallel_tool_calls: true, previous_response_id: "previous_response_id", reasoning: { effort: "low" }, store: true, temperature: 1, tool_choice: "none", top_p: 1, truncation: "auto", user: "user-1234" })],
  ["responses.retrieve", (c) => c.responses.retrieve("resp_677efb5139a88190b512bc3fef8e535d")],
  ["responses.delete", (c) => c.responses.delete("resp_677efb5139a88190b512bc3fef8e535d")],
  ["responses.cancel", (c) => c.responses.cancel("resp_677efb5139a88190b512bc3fef8e535d")],
  ["responses.compact", (c) => c.responses.compact({ model: "gpt-5.1", input: "string" })],
  ["responses.inputItems.list", (c) => c.responses.inputItems.list("response_id", { after: "after", include: ["file_search_call.results"], limit: 0, order: "asc" })],
  // Conversations (the pass-through).
  ["conversations.create", (c) => c.conversations.create({ metadata: { foo: "string" } })],
  ["conversations.retrieve", (c) => c.conversations.retrieve("conv_123")],
  ["conversations.update", (c) => c.conversations.update("conv_123", { metadata: { foo: "string" } })],
  ["conversations.delete", (c) => c.conversations.delete("conv_123")],
  ["conversations.items.list", (c) => c.conversations.items.list("conv_123", { after: "after", limit: 0, order: "asc" })],
  // Videos.
  ["videos.create", (c) => c.videos.create({ prompt: "x" })],
  ["videos.list", (c) => c.videos.list({ after: "after", limit: 0, order: "asc" })],
  ["videos.retrieve", (c) => c.videos.retrieve("video_123")],
  ["videos.delete", (c) => c.videos.delete("video_123")],
  ["videos.remix", (c) => c.videos.remix("video_123", { prompt: "x" })],
  ["videos.edit", (c) => c.videos.edit({ video: { id: "video_123" }, prompt: "x" })],
  ["videos.extend", (c) => c.videos.extend({ video: { id: "video_123" }, prompt: "x", seconds: "4" })],
  // Containers and realtime secrets (the pass-through).
  ["containers.list", (c) => c.containers.list({ after: "after", limit: 0, order: "asc" })],
  ["containers.retrieve", (c) => c.containers.retrieve("container_id")],
  ["containers.delete", (c) => c.containers.delete("container_id")],
  ["realtime.clientSecrets.create", (c) => c.realtime.clientSecrets.create({})],
];

/** The call's status: 200 for a success, the error's HTTP status (or 0 for no answer) otherwise. */
async function outcome(run: () => Promise<unknown>): Promise<{ status: number; detail: string }> {
  try {
    await run();
    return { status: 200, detail: "" };
  } catch (error) {
    const status = error instanceof OpenAI.APIError ? (error.status ?? 0) : 0;
    return { status, detail: error instanceof Error ? error.message.slice(0, 300) : String(error) };
  }
}

describe("the official openai client through the gateway, against a mock of OpenAI's document", () => {
  it("gets everything through the gateway that it gets straight from the mock", { timeout: 240_000 }, async () => {
    const direct = new OpenAI({ baseURL: prism.url, apiKey: "sk-mock", maxRetries: 0 });
    const through = new OpenAI({
      baseURL: `${gateway.url}/v1`,
      apiKey: "sk-mock",
      maxRetries: 0,
      defaultHeaders: { "x-gateway-api-key": gateway.adminKey, "x-gateway-provider": "openai", "x-gateway-custom-host": `${prism.url}/` },
    });
    const passedDirect: string[] = [];
    const lost: string[] = [];
    for (const [name, run] of CALLS) {
      const straight = await outcome(() => run(direct));
      if (straight.status !== 200) continue;
      passedDirect.push(name);
      const proxied = await outcome(() => run(through));
      if (proxied.status !== 200) lost.push(`${name}: ${proxied.status} ${proxied.detail}`);
    }
    // The mock itself accepts the great majority, so the comparison means something.
    expect(passedDirect.length).toBeGreaterThan(CALLS.length * 0.8);
    expect(lost).toEqual([]);
  });
});
