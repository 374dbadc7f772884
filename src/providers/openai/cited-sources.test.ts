import { describe, expect, it } from "vitest";
import type { ClientEvent, StreamTranslator } from "../../streams/stream-protocol.ts";
import { citingStream, withCitedSources } from "./cited-sources.ts";

const pass: StreamTranslator = { event: (event) => [{ data: event.data }] };
const chunk = (content: string, extra: object = {}) => JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content } }], ...extra });
const annotationsOf = (events: ClientEvent[]) => events.flatMap((event) => (JSON.parse(event.data) as { choices: Array<{ delta: { annotations?: unknown[] } }> }).choices[0]!.delta.annotations ?? []);

describe("numbered citations as url_citation annotations", () => {
  it("annotates each marker naming a source, falls back to the citations' URLs, and leaves an answer without sources as it is", () => {
    const answer = { choices: [{ index: 0, message: { role: "assistant", content: "A[1] B[3] C[2]" } }], citations: ["https://a.example/", "https://b.example/"] };
    expect(withCitedSources(answer).choices).toEqual([
      {
        index: 0,
        message: {
          role: "assistant",
          content: "A[1] B[3] C[2]",
          annotations: [
            { type: "url_citation", url_citation: { start_index: 1, end_index: 4, url: "https://a.example/", title: "https://a.example/" } },
            { type: "url_citation", url_citation: { start_index: 11, end_index: 14, url: "https://b.example/", title: "https://b.example/" } },
          ],
        },
      },
    ]);
    const bare = { choices: [{ index: 0, message: { role: "assistant", content: "A[1]" } }] };
    expect(withCitedSources(bare)).toBe(bare);
  });

  it("annotates a marker seen before its sources with the first chunk that names them", () => {
    const stream = citingStream(pass);
    expect(annotationsOf(stream.event({ event: null, data: chunk("Tall[1]") }))).toEqual([]);
    const later = stream.event({ event: null, data: chunk(".", { search_results: [{ url: "https://a.example/", title: "A" }] }) });
    expect(annotationsOf(later)).toEqual([{ type: "url_citation", url_citation: { start_index: 4, end_index: 7, url: "https://a.example/", title: "A" } }]);
    // Passed on once: a later chunk does not repeat it.
    expect(annotationsOf(stream.event({ event: null, data: chunk(" Yes.", { search_results: [{ url: "https://a.example/", title: "A" }] }) }))).toEqual([]);
  });

  it("passes events it cannot read, and the log's own events, as they are", () => {
    const stream = citingStream({ event: (event) => [{ data: event.data, to: "log" }, { data: "[DONE]" }, { data: "not json" }] });
    expect(stream.event({ event: null, data: chunk("x[1]", { citations: ["https://a.example/"] }) })).toEqual([{ data: chunk("x[1]", { citations: ["https://a.example/"] }), to: "log" }, { data: "[DONE]" }, { data: "not json" }]);
  });
});
