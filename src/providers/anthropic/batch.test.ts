import { describe, expect, it } from "vitest";
import { anthropicBatch } from "./batch.ts";

const line = (customId: string) => ({ customId, model: "claude-sonnet-4-5", body: { model: "claude-sonnet-4-5", max_tokens: 10, messages: [], stream: false } });

describe("Anthropic Message Batches transforms", () => {
  it("creates one inline request per line, never streamed", () => {
    const call = anthropicBatch.create([line("a"), line("b")], { batchId: "batch_gw1", place: null, fields: {} });
    expect(call).toEqual({ method: "POST", path: "/messages/batches", body: { requests: [{ custom_id: "a", params: { model: "claude-sonnet-4-5", max_tokens: 10, messages: [] } }, { custom_id: "b", params: { model: "claude-sonnet-4-5", max_tokens: 10, messages: [] } }] } });
  });

  it("refuses a custom_id Anthropic does not take", () => {
    expect(anthropicBatch.checkLine!(line("ok_id-1"))).toBeNull();
    expect(anthropicBatch.checkLine!(line("a b"))).toContain("custom_id");
    expect(anthropicBatch.checkLine!(line("x".repeat(65)))).toContain("custom_id");
  });

  it("maps processing_status and request_counts to OpenAI's status and counts", () => {
    const counts = { processing: 0, succeeded: 3, errored: 1, canceled: 0, expired: 0 };
    expect(anthropicBatch.state({ processing_status: "in_progress", request_counts: { ...counts, processing: 4, succeeded: 0, errored: 0 } })).toMatchObject({ status: "in_progress", ended: false, counts: { total: 4, completed: 0, failed: 0 } });
    expect(anthropicBatch.state({ processing_status: "canceling", request_counts: counts })).toMatchObject({ status: "cancelling", ended: false });
    expect(anthropicBatch.state({ processing_status: "ended", request_counts: counts, results_url: "https://api.anthropic.com/v1/messages/batches/b/results" })).toEqual({
      status: "completed",
      ended: true,
      counts: { total: 4, completed: 3, failed: 1 },
      resultsUrl: "https://api.anthropic.com/v1/messages/batches/b/results",
    });
    expect(anthropicBatch.state({ processing_status: "ended", cancel_initiated_at: "2026-01-01T00:00:00Z", request_counts: counts }).status).toBe("cancelled");
    expect(anthropicBatch.state({ processing_status: "ended", request_counts: { ...counts, succeeded: 0, errored: 0, expired: 2 } }).status).toBe("expired");
  });

  it("reads each result type and skips lines that do not parse", () => {
    const text = [
      JSON.stringify({ custom_id: "a", result: { type: "succeeded", message: { id: "msg_1", content: [] } } }),
      JSON.stringify({ custom_id: "b", result: { type: "errored", error: { type: "error", error: { type: "invalid_request_error", message: "bad" } } } }),
      JSON.stringify({ custom_id: "c", result: { type: "expired" } }),
      "{broken",
      "",
    ].join("\n");
    expect(anthropicBatch.readResults(text, [])).toEqual([
      { customId: "a", kind: "succeeded", answer: { id: "msg_1", content: [] } },
      { customId: "b", kind: "errored", status: 400, code: "invalid_request_error", message: "bad" },
      { customId: "c", kind: "expired", status: 408, code: "batch_expired", message: "The batch expired before this request ran." },
    ]);
  });
});
