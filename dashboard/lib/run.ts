import { ApiError, request } from "./api.ts";

/** Where a run goes: a provider (with the upstream key typed in this tab) or `@<virtual key slug>`. */
export interface RunTarget {
  /** `openai`, or `@vk-…` for a virtual key (the gateway reads both from `x-gateway-provider`). */
  target: string;
  /** The upstream key for a provider target; kept in memory, sent as `Authorization`. */
  upstreamKey: string;
  /** An OpenAI-compatible base URL for a provider target (`x-gateway-custom-host`). */
  customHost: string;
}

/** What a finished (or failed) run shows. */
export interface RunResult {
  text: string;
  status: number | null;
  logId: string | null;
  model: string | null;
  provider: string | null;
  firstTokenMs: number | null;
  totalMs: number;
  usage: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number } | null;
  error: ApiError | null;
}

export const isVirtualKey = (target: string): boolean => target.startsWith("@");

/** The gateway headers that send a run to its target. */
export function targetHeaders(run: RunTarget): Record<string, string> {
  const headers: Record<string, string> = {};
  const target = run.target.trim();
  if (target) headers["x-gateway-provider"] = target;
  if (!isVirtualKey(target)) {
    if (run.upstreamKey.trim()) headers.authorization = `Bearer ${run.upstreamKey.trim()}`;
    if (run.customHost.trim()) headers["x-gateway-custom-host"] = run.customHost.trim();
  }
  return headers;
}

interface Chunk {
  model?: string;
  choices?: { delta?: { content?: string | null; refusal?: string | null } }[];
  usage?: RunResult["usage"];
  error?: { message?: string; code?: string; param?: string };
}

/** Server-sent events as they arrive: each event's name and its joined data lines. */
async function* events(body: ReadableStream<Uint8Array>): AsyncGenerator<{ event: string; data: string }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    buffer += decoder.decode(value, { stream: !done });
    let end: number;
    while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
      let event = "message";
      const data: string[] = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length) yield { event, data: data.join("\n") };
    }
    if (done) return;
  }
}

/**
 * Sends a chat request with `stream: true` and reads its chunks as they come, calling `onText`
 * with the answer so far. Never throws: a refusal (any non-2xx, with the gateway's message) or
 * an error event mid-stream ends up in `error`.
 */
export async function streamRun(path: string, body: Record<string, unknown>, run: RunTarget, onText: (text: string) => void, query?: Record<string, string>): Promise<RunResult> {
  const started = performance.now();
  const result: RunResult = { text: "", status: null, logId: null, model: null, provider: null, firstTokenMs: null, totalMs: 0, usage: null, error: null };
  try {
    const response = await request(path, {
      method: "POST",
      query,
      body: { ...body, stream: true, stream_options: { include_usage: true } },
      headers: { accept: "text/event-stream", ...targetHeaders(run) },
      relaysUpstream: true,
    });
    result.status = response.status;
    result.logId = response.headers.get("x-gateway-log-id");
    result.provider = response.headers.get("x-gateway-provider");
    if (!response.body) throw new ApiError("The gateway answered without a body.", response.status);
    for await (const { event, data } of events(response.body)) {
      if (data === "[DONE]") break;
      let chunk: Chunk;
      try {
        chunk = JSON.parse(data) as Chunk;
      } catch {
        throw new ApiError(`The stream sent an event that is not JSON: ${data.slice(0, 200)}`, response.status);
      }
      if (event === "error" || chunk.error) {
        throw new ApiError(chunk.error?.message ?? "The stream ended with an error.", response.status, chunk.error?.code ?? null, chunk.error?.param ?? null);
      }
      result.model = chunk.model ?? result.model;
      if (chunk.usage) result.usage = chunk.usage;
      const delta = chunk.choices?.[0]?.delta;
      const piece = (delta?.content ?? "") + (delta?.refusal ?? "");
      if (piece) {
        result.firstTokenMs ??= performance.now() - started;
        result.text += piece;
        onText(result.text);
      }
    }
  } catch (failure) {
    result.error = failure instanceof ApiError ? failure : new ApiError((failure as Error).message ?? String(failure), 0);
    result.status = result.error.status || result.status;
  }
  result.totalMs = performance.now() - started;
  return result;
}
