import { describe, expect, it } from "vitest";
import { GatewayError } from "../../errors.ts";
import { bedrockBatch } from "./batch.ts";

const MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0";
const line = (customId: string, model = MODEL) => ({ customId, model, body: { messages: [{ role: "user", content: [{ text: customId }] }] } });
const target = { baseUrl: "https://bedrock-runtime.eu-west-1.amazonaws.com", apiKey: null, fields: { aws_batch_bucket: "my-bucket", aws_batch_role_arn: "arn:aws:iam::123456789012:role/Batch", aws_region: "eu-west-1", aws_access_key_id: "AKIAIOSFODNN7EXAMPLE", aws_secret_access_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" } };

describe("Bedrock batch inference transforms", () => {
  it("places the batch in the target's bucket and names the missing field otherwise", () => {
    expect(bedrockBatch.storage!.place("batch_gw1", target)).toEqual({ bucket: "my-bucket", roleArn: "arn:aws:iam::123456789012:role/Batch", inputKey: "gateway-batches/batch_gw1/input.jsonl", outputKey: "gateway-batches/batch_gw1/output/" });
    const missing = bedrockBatch.storage!.place("batch_gw1", { ...target, fields: { ...target.fields, aws_batch_role_arn: "" } });
    expect(missing).toBeInstanceOf(GatewayError);
    expect((missing as GatewayError).param).toBe("x-gateway-aws-batch-role-arn");
  });

  it("writes one record per line and signs S3 requests on the region's bucket endpoint", async () => {
    expect(bedrockBatch.storage!.input([line("a"), line("b")]).trim().split("\n").map((text) => JSON.parse(text).recordId)).toEqual(["R0000000000", "R0000000001"]);
    const place = bedrockBatch.storage!.place("batch_gw1", target) as Record<string, string>;
    const put = await bedrockBatch.storage!.request({ method: "PUT", object: "input", body: "{}\n" }, place, target);
    expect(put).toMatchObject({ method: "PUT", url: "https://my-bucket.s3.eu-west-1.amazonaws.com/gateway-batches/batch_gw1/input.jsonl" });
    expect((put as { headers: Record<string, string> }).headers.authorization).toContain("/eu-west-1/s3/aws4_request");
    const get = await bedrockBatch.storage!.request({ method: "GET", object: "results", jobId: "arn:aws:bedrock:eu-west-1:123456789012:model-invocation-job/abc123" }, place, target);
    expect((get as { url: string }).url).toBe("https://my-bucket.s3.eu-west-1.amazonaws.com/gateway-batches/batch_gw1/output/abc123/input.jsonl.out");
    expect(bedrockBatch.apiBase!(target.baseUrl)).toBe("https://bedrock.eu-west-1.amazonaws.com");
  });

  it("creates a Converse job of one model and refuses two", () => {
    const place = bedrockBatch.storage!.place("batch_gw1", target) as Record<string, string>;
    expect(bedrockBatch.create([line("a")], { batchId: "batch_gw1", place, fields: target.fields })).toMatchObject({ path: "/model-invocation-job", body: { modelId: MODEL, modelInvocationType: "Converse", jobName: "gateway-batch-gw1" } });
    expect(bedrockBatch.create([line("a"), line("b", "amazon.nova-pro-v1:0")], { batchId: "batch_gw1", place, fields: target.fields })).toBeInstanceOf(GatewayError);
  });

  it("maps job statuses and reads records back by recordId", () => {
    expect(bedrockBatch.state({ status: "Submitted" })).toMatchObject({ status: "validating", ended: false });
    expect(bedrockBatch.state({ status: "InProgress" })).toMatchObject({ status: "in_progress", ended: false });
    expect(bedrockBatch.state({ status: "Stopping" })).toMatchObject({ status: "cancelling", ended: false });
    expect(bedrockBatch.state({ status: "Completed" })).toMatchObject({ status: "completed", ended: true });
    expect(bedrockBatch.state({ status: "Failed", message: "role cannot read the bucket" })).toMatchObject({ status: "failed", ended: true, failure: "role cannot read the bucket" });
    const text = [
      JSON.stringify({ recordId: "R0000000001", modelInput: {}, modelOutput: { output: { message: { role: "assistant", content: [{ text: "hi" }] } } } }),
      JSON.stringify({ recordId: "R0000000000", modelInput: {}, error: { errorCode: 400, errorMessage: "bad request" } }),
      JSON.stringify({ recordId: "R0000000009", modelInput: {}, modelOutput: {} }),
    ].join("\n");
    expect(bedrockBatch.readResults(text, [line("first"), line("second")])).toEqual([
      { customId: "second", kind: "succeeded", answer: { output: { message: { role: "assistant", content: [{ text: "hi" }] } } } },
      { customId: "first", kind: "errored", status: 400, code: "invalid_request_error", message: "bad request" },
    ]);
  });
});
