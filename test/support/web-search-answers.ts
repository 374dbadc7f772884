/**
 * Answers of providers that searched the web, in each provider's own documented format: an
 * Anthropic Messages answer with a `server_tool_use` web search and cited text blocks, a Gemini
 * answer grounded on Google Search (supports by byte offsets), and an OpenAI Responses answer with
 * two `web_search_call` items and a `url_citation`, each plain and as its stream. `webSearchAnswer`
 * answers a recording upstream's request by its path; a Messages request saying "search twice"
 * gets an answer whose usage counts two searches.
 * https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool
 * https://ai.google.dev/gemini-api/docs/google-search
 * https://platform.openai.com/docs/guides/tools-web-search
 */
import type { ReceivedRequest } from "./recording-upstream.ts";

/** An Anthropic answer that searched once and cites one source (the Messages API's own format). */
export const ANTHROPIC_SEARCHED = {
  id: "msg_search_1",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5",
  stop_reason: "end_turn",
  content: [
    { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "eiffel tower height" } },
    { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [{ type: "web_search_result", url: "https://example.org/eiffel", title: "Eiffel Tower", encrypted_content: "x" }] },
    { type: "text", text: "Here is what I found. " },
    { type: "text", text: "The tower is 330 m tall.", citations: [{ type: "web_search_result_location", url: "https://example.org/eiffel", title: "Eiffel Tower", cited_text: "330 m", encrypted_index: "y" }] },
  ],
  usage: { input_tokens: 900, output_tokens: 40, server_tool_use: { web_search_requests: 1 } },
};

/** A Gemini answer grounded on Google Search: supports by byte offsets ("é" is two bytes). */
export const GEMINI_TEXT = "Café prices rose. Rents too.";
export const GEMINI_GROUNDED = {
  responseId: "gem_search_1",
  modelVersion: "gemini-2.5-flash",
  candidates: [
    {
      index: 0,
      finishReason: "STOP",
      content: { role: "model", parts: [{ text: GEMINI_TEXT }] },
      groundingMetadata: {
        webSearchQueries: ["cafe prices 2026"],
        groundingChunks: [{ web: { uri: "https://news.example/cafe", title: "news.example" } }, { web: { uri: "https://rent.example/", title: "rent.example" } }],
        groundingSupports: [
          { segment: { startIndex: 0, endIndex: 18, text: "Café prices rose." }, groundingChunkIndices: [0] },
          { segment: { startIndex: 19, endIndex: 30, text: "Rents too." }, groundingChunkIndices: [1] },
        ],
      },
    },
  ],
  usageMetadata: { promptTokenCount: 50, candidatesTokenCount: 12, totalTokenCount: 62 },
};

/** The same Anthropic answer as a Messages stream: the search's query arrives in pieces, the citation before the text. */
export const ANTHROPIC_STREAM = [
  { type: "message_start", message: { id: "msg_search_2", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [], usage: { input_tokens: 900, output_tokens: 1 } } },
  { type: "content_block_start", index: 0, content_block: { type: "server_tool_use", id: "srvtoolu_2", name: "web_search", input: {} } },
  { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"query":"eiffel ' } },
  { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: 'tower height"}' } },
  { type: "content_block_stop", index: 0 },
  { type: "content_block_start", index: 1, content_block: { type: "web_search_tool_result", tool_use_id: "srvtoolu_2", content: [{ type: "web_search_result", url: "https://example.org/eiffel", title: "Eiffel Tower", encrypted_content: "x" }] } },
  { type: "content_block_stop", index: 1 },
  { type: "content_block_start", index: 2, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 2, delta: { type: "text_delta", text: "Here is what I found. " } },
  { type: "content_block_stop", index: 2 },
  { type: "content_block_start", index: 3, content_block: { type: "text", text: "", citations: [] } },
  { type: "content_block_delta", index: 3, delta: { type: "citations_delta", citation: { type: "web_search_result_location", url: "https://example.org/eiffel", title: "Eiffel Tower", cited_text: "330 m", encrypted_index: "y" } } },
  { type: "content_block_delta", index: 3, delta: { type: "text_delta", text: "The tower is " } },
  { type: "content_block_delta", index: 3, delta: { type: "text_delta", text: "330 m tall." } },
  { type: "content_block_stop", index: 3 },
  { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 40, server_tool_use: { web_search_requests: 1 } } },
  { type: "message_stop" },
];

/** The Anthropic stream with a second search before the text, its usage counting both. */
function twoSearchesStream(): object[] {
  const again = [
    { type: "content_block_start", index: 0, content_block: { type: "server_tool_use", id: "srvtoolu_3", name: "web_search", input: { query: "eiffel tower metres" } } },
    { type: "content_block_stop", index: 0 },
  ];
  const shifted = ANTHROPIC_STREAM.slice(1, -2).map((event) => ("index" in event ? { ...event, index: (event.index as number) + 1 } : event));
  const end = { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 40, server_tool_use: { web_search_requests: 2 } } };
  return [ANTHROPIC_STREAM[0]!, ...again, ...shifted, end, { type: "message_stop" }];
}

/** The grounded Gemini answer as a stream: the text in two events, the grounding metadata on the last. */
const GEMINI_STREAM = [
  { responseId: "gem_search_2", modelVersion: "gemini-2.5-flash", candidates: [{ index: 0, content: { role: "model", parts: [{ text: "Café prices rose." }] } }] },
  { ...GEMINI_GROUNDED, responseId: "gem_search_2", candidates: [{ ...GEMINI_GROUNDED.candidates[0], content: { role: "model", parts: [{ text: " Rents too." }] } }] },
];

const sse = (events: object[], named: boolean) => ({
  headers: { "content-type": "text/event-stream" },
  body: events.map((event) => `${named ? `event: ${(event as { type: string }).type}\n` : ""}data: ${JSON.stringify(event)}\n\n`).join(""),
});

/** An OpenAI Responses answer that searched twice (two `web_search_call` items) and cites one source. */
export const OPENAI_TEXT = "The tower is 330 m tall.";
export const OPENAI_SEARCHED = {
  id: "resp_search_1",
  object: "response",
  created_at: 1_780_000_000,
  status: "completed",
  model: "gpt-5",
  output: [
    { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search", query: "eiffel tower height" } },
    { type: "web_search_call", id: "ws_2", status: "completed", action: { type: "search", query: "eiffel tower height metres" } },
    {
      type: "message",
      id: "msg_1",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: OPENAI_TEXT, annotations: [{ type: "url_citation", start_index: 0, end_index: 24, url: "https://example.org/eiffel", title: "Eiffel Tower" }] }],
    },
  ],
  usage: { input_tokens: 1000, input_tokens_details: { cached_tokens: 0 }, output_tokens: 100, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 1100 },
};

/** The same answer as OpenAI streams it: each search call's events, then the text, its annotation, and the completed response. */
function openaiStream(): object[] {
  const [first, second, message] = OPENAI_SEARCHED.output as Array<Record<string, any>>;
  const { output: _output, usage: _usage, ...bare } = OPENAI_SEARCHED;
  const searching = (item: Record<string, any>, index: number) => [
    { type: "response.output_item.added", output_index: index, item: { ...item, status: "in_progress" } },
    { type: "response.web_search_call.in_progress", output_index: index, item_id: item.id },
    { type: "response.web_search_call.searching", output_index: index, item_id: item.id },
    { type: "response.web_search_call.completed", output_index: index, item_id: item.id },
    { type: "response.output_item.done", output_index: index, item },
  ];
  const part = message!.content[0];
  const events = [
    { type: "response.created", response: { ...bare, status: "in_progress", output: [] } },
    ...searching(first!, 0),
    ...searching(second!, 1),
    { type: "response.output_item.added", output_index: 2, item: { ...message, status: "in_progress", content: [] } },
    { type: "response.content_part.added", output_index: 2, item_id: "msg_1", content_index: 0, part: { type: "output_text", text: "", annotations: [] } },
    { type: "response.output_text.delta", output_index: 2, item_id: "msg_1", content_index: 0, delta: OPENAI_TEXT },
    { type: "response.output_text.annotation.added", output_index: 2, item_id: "msg_1", content_index: 0, annotation_index: 0, annotation: part.annotations[0] },
    { type: "response.output_text.done", output_index: 2, item_id: "msg_1", content_index: 0, text: OPENAI_TEXT },
    { type: "response.content_part.done", output_index: 2, item_id: "msg_1", content_index: 0, part },
    { type: "response.output_item.done", output_index: 2, item: message },
    { type: "response.completed", response: OPENAI_SEARCHED },
  ];
  return events.map((event, index) => ({ ...event, sequence_number: index }));
}

/** A Perplexity answer: numbered markers in the text over its `search_results` (and their `citations` URLs). */
export const PERPLEXITY_TEXT = "The tower is 330 m tall[1]. It was finished in 1889[2].";
const PERPLEXITY_SOURCES = {
  search_results: [
    { title: "Eiffel Tower", url: "https://example.org/eiffel", date: "2025-01-01" },
    { title: "Tower history", url: "https://example.org/history", date: "2024-06-01" },
  ],
  citations: ["https://example.org/eiffel", "https://example.org/history"],
};
export const PERPLEXITY_ANSWER = {
  id: "pplx_1",
  object: "chat.completion",
  created: 1_780_000_000,
  model: "sonar",
  choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: PERPLEXITY_TEXT } }],
  ...PERPLEXITY_SOURCES,
  usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30, search_context_size: "low" },
};

/** The same answer streamed as Perplexity streams it: the sources on every chunk, a marker cut between two chunks, the usage on the last. */
function perplexityStream(): object[] {
  const chunk = (content: string | null, rest: object = {}) => ({
    id: "pplx_2",
    object: "chat.completion.chunk",
    created: 1_780_000_000,
    model: "sonar",
    choices: [{ index: 0, delta: content === null ? {} : { role: "assistant", content }, finish_reason: null }],
    ...PERPLEXITY_SOURCES,
    ...rest,
  });
  const last = chunk(null, { usage: PERPLEXITY_ANSWER.usage });
  (last.choices[0] as { finish_reason: string | null }).finish_reason = "stop";
  return [chunk("The tower is 330 m tall["), chunk("1]. It was finished in 1889"), chunk("[2]."), last];
}

export function webSearchAnswer(request: ReceivedRequest): object {
  const streamed = request.path.includes("streamGenerateContent") || request.body.includes('"stream":true');
  if (/\/chat\/completions(\?|$)/.test(request.path)) {
    if (!streamed) return PERPLEXITY_ANSWER;
    return { headers: { "content-type": "text/event-stream" }, body: [...perplexityStream().map((event) => `data: ${JSON.stringify(event)}\n\n`), "data: [DONE]\n\n"].join("") };
  }
  if (/\/responses(\?|$)/.test(request.path)) return streamed ? sse(openaiStream(), true) : OPENAI_SEARCHED;
  if (/\/messages(\?|$)/.test(request.path)) {
    const body = JSON.parse(request.body.toString("utf8")) as { messages: Array<{ content: unknown }> };
    const twice = JSON.stringify(body.messages).includes("search twice");
    return streamed ? sse(twice ? twoSearchesStream() : ANTHROPIC_STREAM, true) : twice ? { ...ANTHROPIC_SEARCHED, usage: { ...ANTHROPIC_SEARCHED.usage, server_tool_use: { web_search_requests: 2 } } } : ANTHROPIC_SEARCHED;
  }
  return streamed ? sse(GEMINI_STREAM, false) : GEMINI_GROUNDED;
}

