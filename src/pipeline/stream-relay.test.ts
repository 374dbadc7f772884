import { describe, expect, it } from "vitest";
import { GatewayError } from "../errors.ts";
import type { AnswerEnding } from "../logging/outcome.ts";
import { createSseDecoder, openaiSseProtocol, type StreamProtocol, type StreamTranslator } from "../streams/stream-protocol.ts";
import { relayStream } from "./stream-relay.ts";
import type { UpstreamCall } from "../net/upstream-call.ts";

/** A protocol shaped like Anthropic's: typed events, ended by `message_stop`, no `[DONE]`. */
const typedProtocol: StreamProtocol = {
  contentType: "text/event-stream",
  createDecoder: createSseDecoder,
  isEnd: (event) => event.event === "message_stop",
  endsAtEof: false,
  isError: (event) => event.event === "error",
};

/** Turns `text` events into chat chunks and closes with a usage chunk and `[DONE]`. */
function chatTranslator(): StreamTranslator {
  let characters = 0;
  return {
    event(event) {
      if (event.event !== "text") return [];
      characters += event.data.length;
      return [{ data: JSON.stringify({ choices: [{ index: 0, delta: { content: event.data } }] }) }];
    },
    end: () => [{ data: JSON.stringify({ choices: [], usage: { completion_tokens: characters } }) }, { data: "[DONE]", to: "client" }],
  };
}

function upstreamCall(text: string): UpstreamCall {
  const bytes = new TextEncoder().encode(text);
  // Split mid-event, as a network would.
  const parts = [bytes.subarray(0, 7), bytes.subarray(7)];
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const part = parts.shift();
      if (part) controller.enqueue(part);
      else controller.close();
    },
  });
  return {
    response: new Response(body, { headers: { "content-type": "text/event-stream" } }),
    abort() {},
    done() {},
    classify: () => new GatewayError("upstream_error", "The upstream's stream broke off."),
    scrub: (text: string) => text,
  };
}

/** The relay's body; its ending, once it comes, is pushed to `endings`. */
function relay(call: UpstreamCall, endings: Ending[], options: Parameters<typeof relayStream>[1]): ReadableStream<Uint8Array> {
  const relayed = relayStream(call, options);
  void relayed.ended.then((ending) => endings.push({ ...ending, errorCode: ending.error?.code ?? null, errorMessage: ending.error?.message ?? null }));
  return relayed.body;
}

type Ending = AnswerEnding & { errorCode: string | null; errorMessage: string | null };

/** Lets the ending's promise settle. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

const limits = { maxLoggedBytes: 1 << 20, maxBufferedBytes: 1 << 20 };

describe("relayStream", () => {
  it("decodes with the provider's protocol, translates event by event and closes with the translator's events", async () => {
    const entries: Ending[] = [];
    const call = upstreamCall("event: text\ndata: Hel\n\nevent: ping\ndata: {}\n\nevent: text\ndata: lo\n\nevent: message_stop\ndata: {}\n\nevent: text\ndata: after the end\n\n");
    const out = await new Response(relay(call, entries, { protocol: typedProtocol, endsAtEof: false, translator: chatTranslator(), ...limits })).text();
    await settled();
    const data = out.split("\n\n").filter(Boolean).map((event) => event.replace(/^data: /, ""));
    expect(data).toEqual([
      JSON.stringify({ choices: [{ index: 0, delta: { content: "Hel" } }] }),
      JSON.stringify({ choices: [{ index: 0, delta: { content: "lo" } }] }),
      JSON.stringify({ choices: [], usage: { completion_tokens: 5 } }),
      "[DONE]",
    ]);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.errorMessage).toBeNull();
    // The log keeps what the client got, the usage chunk included, without the end marker.
    expect(entries[0]!.response).toMatchObject({ kind: "stream", chunks: data.slice(0, 3) });
  });

  it("calls onEnd exactly once as the stream ends: cleanly, cut short, or cancelled by the client", async () => {
    const clean = "event: text\ndata: Hel\n\nevent: message_stop\ndata: {}\n\n";
    const counts: number[] = [];
    for (const [text, cancel] of [[clean, false], ["event: text\ndata: partial\n\n", false], [clean, true]] as const) {
      let ends = 0;
      const body = relay(upstreamCall(text), [], { protocol: typedProtocol, endsAtEof: false, translator: chatTranslator(), onEnd: () => ends++, ...limits });
      if (cancel) await body.cancel();
      else await new Response(body).text();
      counts.push(ends);
    }
    expect(counts).toEqual([1, 1, 1]);
  });

  it("ends a stream cut before its end event with an error event, unless the rule lets the bytes end it", async () => {
    const cut = "event: text\ndata: partial\n\n";
    const entries: Ending[] = [];
    const failed = await new Response(relay(upstreamCall(cut), entries, { protocol: typedProtocol, endsAtEof: false, translator: chatTranslator(), ...limits })).text();
    await settled();
    expect(failed).toContain("event: error");
    expect(failed).not.toContain("[DONE]");
    expect(entries[0]!).toMatchObject({ errorCode: "upstream_error", errorMessage: "The upstream's stream ended before its end event." });

    const endedEntries: Ending[] = [];
    const ended = await new Response(relay(upstreamCall(cut), endedEntries, { protocol: typedProtocol, endsAtEof: true, translator: chatTranslator(), ...limits })).text();
    await settled();
    expect(ended).not.toContain("event: error");
    expect(ended.trim().endsWith("data: [DONE]")).toBe(true);
    expect(endedEntries[0]!.errorMessage).toBeNull();
  });

  it("without a translator passes events as they are and forwards the upstream's own end event", async () => {
    const entries: Ending[] = [];
    const text = 'data: {"a":1}\n\nevent: custom\ndata: {"b":2}\n\ndata: [DONE]\n\n';
    const out = await new Response(relay(upstreamCall(text), entries, { protocol: openaiSseProtocol, endsAtEof: false, translator: null, ...limits })).text();
    await settled();
    expect(out).toBe(text);
    expect(entries[0]!.response).toMatchObject({ chunks: ['{"a":1}', '{"b":2}'] });
  });

  it("lets output guardrails judge the logged events before the client gets the closing ones", async () => {
    const entries: Ending[] = [];
    const judged: string[][] = [];
    const beforeEnd = async (chunks: readonly string[]) => {
      judged.push([...chunks]);
      return new GatewayError("guardrail_denied", "denied");
    };
    const call = upstreamCall("event: text\ndata: Hi\n\nevent: message_stop\ndata: {}\n\n");
    const out = await new Response(relay(call, entries, { protocol: typedProtocol, endsAtEof: false, translator: chatTranslator(), beforeEnd, ...limits })).text();
    await settled();
    expect(judged[0]).toHaveLength(2);
    expect(out).toContain("event: error");
    expect(out).not.toContain("[DONE]");
    expect(entries[0]!.errorCode).toBe("guardrail_denied");
  });

  it("ends at an operation's own end event: logged, nothing after it read, held back while guardrails judge", async () => {
    const isOperationEnd = (event: { event: string | null }) => event.event === "response.completed";
    const text = 'event: response.output_text.delta\ndata: {"delta":"Hi"}\n\nevent: response.completed\ndata: {"done":1}\n\nevent: response.output_text.delta\ndata: {"delta":"late"}\n\n';
    const entries: Ending[] = [];
    const passed = await new Response(relay(upstreamCall(text), entries, { protocol: openaiSseProtocol, endsAtEof: true, isOperationEnd, translator: null, ...limits })).text();
    await settled();
    expect(passed).toBe('event: response.output_text.delta\ndata: {"delta":"Hi"}\n\nevent: response.completed\ndata: {"done":1}\n\n');
    expect(entries[0]!.response).toMatchObject({ kind: "stream", chunks: ['{"delta":"Hi"}', '{"done":1}'] });
    expect(entries[0]!.errorCode).toBeNull();

    const judged: string[][] = [];
    const beforeEnd = async (chunks: readonly string[]) => {
      judged.push([...chunks]);
      return new GatewayError("guardrail_denied", "denied");
    };
    const denied = await new Response(relay(upstreamCall(text), [], { protocol: openaiSseProtocol, endsAtEof: true, isOperationEnd, translator: null, beforeEnd, ...limits })).text();
    await settled();
    expect(judged[0]).toEqual(['{"delta":"Hi"}', '{"done":1}']);
    expect(denied).not.toContain("response.completed");
    expect(denied).toContain("event: error");
  });
});

/** An upstream that has an event ready whenever asked (an endless stream), and says when it was aborted. */
function endlessCall(): UpstreamCall & { aborted: boolean; reads: number } {
  const event = new TextEncoder().encode("event: text\ndata: more\n\n");
  const call = {
    aborted: false,
    reads: 0,
    response: new Response(
      new ReadableStream<Uint8Array>({
        pull(controller) {
          call.reads++;
          controller.enqueue(event);
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    ),
    abort() {
      call.aborted = true;
    },
    done() {},
    classify: () => new GatewayError("upstream_error", "The upstream's stream broke off."),
    scrub: (text: string) => text,
  };
  return call;
}

describe("relayStream with a stall timeout", () => {
  it("cuts off a client that takes nothing: the upstream aborted, its stream errored, the log 499 client_closed", async () => {
    const entries: Ending[] = [];
    const call = endlessCall();
    const stream = relay(call, entries, { protocol: typedProtocol, endsAtEof: false, translator: chatTranslator(), stallTimeoutMs: 100, ...limits });
    const reader = stream.getReader();
    await reader.read();
    const readsWhenStalled = call.reads;
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Pull-based: nothing more was read from the upstream while the client took nothing.
    expect(call.reads - readsWhenStalled).toBeLessThanOrEqual(2);
    expect(call.aborted).toBe(true);
    await settled();
    expect(entries[0]).toMatchObject({ status: 499, errorCode: "client_closed" });
    expect(entries[0]!.errorMessage).toContain("GATEWAY_STREAM_STALL_TIMEOUT_MS");
    await expect(reader.read()).rejects.toThrow("stopped reading");
  });

  it("leaves a client alone that keeps reading, however slowly, each read within the timeout", async () => {
    const entries: Ending[] = [];
    const call = endlessCall();
    const reader = relay(call, entries, { protocol: typedProtocol, endsAtEof: false, translator: chatTranslator(), stallTimeoutMs: 150, ...limits }).getReader();
    for (let i = 0; i < 8; i++) {
      expect((await reader.read()).done).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    expect(call.aborted).toBe(false);
    expect(entries).toHaveLength(0);
    await reader.cancel();
    await settled();
    expect(entries[0]).toMatchObject({ status: 499, errorCode: "client_closed", errorMessage: "The client closed the stream." });
  });
});
