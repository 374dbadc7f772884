import { describe, expect, it } from "vitest";
import { GatewayError } from "../../errors.ts";
import { vertexBatch } from "./batch.ts";

const line = (customId: string, model = "gemini-2.5-flash") => ({ customId, model, body: { contents: [{ role: "user", parts: [{ text: customId }] }] } });
const target = { baseUrl: "https://us-central1-aiplatform.googleapis.com/v1", apiKey: "ya29.token", fields: { vertex_project: "my-project-123", vertex_location: "us-central1", vertex_batch_bucket: "my-bucket" } };

describe("Vertex AI batch prediction transforms", () => {
  it("labels each request with its line, uploads to Cloud Storage and reads only the batch's own bucket", async () => {
    const place = vertexBatch.storage!.place("batch_gw1", target) as Record<string, string>;
    expect(place).toEqual({ bucket: "my-bucket", inputObject: "gateway-batches/batch_gw1/input.jsonl", outputPrefix: "gateway-batches/batch_gw1/output" });
    const input = vertexBatch.storage!.input([line("a"), line("b")]).trim().split("\n").map((text) => JSON.parse(text));
    expect(input[1]).toEqual({ request: { contents: [{ role: "user", parts: [{ text: "b" }] }], labels: { gateway_line: "l0000000001" } } });
    const put = await vertexBatch.storage!.request({ method: "PUT", object: "input", body: "x" }, place, target);
    expect(put).toMatchObject({ method: "POST", url: "https://storage.googleapis.com/upload/storage/v1/b/my-bucket/o?uploadType=media&name=gateway-batches%2Fbatch_gw1%2Finput.jsonl" });
    const get = await vertexBatch.storage!.request({ method: "GET", object: "results", location: "gs://my-bucket/gateway-batches/batch_gw1/output/prediction-model-1" }, place, target);
    expect((get as { url: string }).url).toBe("https://storage.googleapis.com/storage/v1/b/my-bucket/o/gateway-batches%2Fbatch_gw1%2Foutput%2Fprediction-model-1%2Fpredictions.jsonl?alt=media");
    expect(await vertexBatch.storage!.request({ method: "GET", object: "results", location: "gs://another-bucket/x" }, place, target)).toBeInstanceOf(GatewayError);
  });

  it("creates a job for the project and location and refuses two models", () => {
    const place = vertexBatch.storage!.place("batch_gw1", target) as Record<string, string>;
    expect(vertexBatch.create([line("a")], { batchId: "batch_gw1", place, fields: target.fields })).toMatchObject({
      path: "/projects/my-project-123/locations/us-central1/batchPredictionJobs",
      body: { model: "publishers/google/models/gemini-2.5-flash", inputConfig: { instancesFormat: "jsonl" } },
    });
    expect(vertexBatch.create([line("a"), line("b", "gemini-2.5-pro")], { batchId: "batch_gw1", place, fields: target.fields })).toBeInstanceOf(GatewayError);
  });

  it("maps job states and reads predictions back by label, in any order", () => {
    expect(vertexBatch.state({ state: "JOB_STATE_PENDING" })).toMatchObject({ status: "validating", ended: false });
    expect(vertexBatch.state({ state: "JOB_STATE_RUNNING" })).toMatchObject({ status: "in_progress", ended: false });
    expect(vertexBatch.state({ state: "JOB_STATE_SUCCEEDED", outputInfo: { gcsOutputDirectory: "gs://b/o" }, completionStats: { successfulCount: "2", failedCount: "1" } })).toEqual({
      status: "completed",
      ended: true,
      counts: { total: 3, completed: 2, failed: 1 },
      resultsUrl: "gs://b/o",
    });
    expect(vertexBatch.state({ state: "JOB_STATE_FAILED", error: { message: "quota" } })).toMatchObject({ status: "failed", ended: true, failure: "quota" });
    const text = [
      JSON.stringify({ status: "", request: { labels: { gateway_line: "l0000000001" } }, response: { candidates: [] } }),
      JSON.stringify({ status: "Bad Request", request: { labels: { gateway_line: "l0000000000" } } }),
      JSON.stringify({ status: "", request: {}, response: {} }),
    ].join("\n");
    expect(vertexBatch.readResults(text, [line("first"), line("second")])).toEqual([
      { customId: "second", kind: "succeeded", answer: { candidates: [] } },
      { customId: "first", kind: "errored", status: 400, code: "invalid_request_error", message: "Bad Request" },
    ]);
  });
});
