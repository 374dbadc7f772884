import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in for Bedrock batch inference and the S3 bucket it reads and writes, on loopback, as
 * AWS documents them: S3 objects by path-style `PUT`/`GET /<bucket>/<key>` (SigV4 for `s3`), and
 * on the control plane `POST /model-invocation-job` (`CreateModelInvocationJob`),
 * `GET /model-invocation-job/<arn>` and `POST …/<arn>/stop` (SigV4 for `bedrock`). A job
 * completes on its second read: each record's `modelInput` runs through `converseUrl(model)`
 * (aimock's Converse), except one whose text holds "poison" (an error record), and the output
 * `{recordId, modelInput, modelOutput | error}` is written to `<output>/<job id>/input.jsonl.out`.
 * A job stopped before that ends `Stopped` with no output.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_CreateModelInvocationJob.html
 */
export interface BedrockBatches {
  /** Base URL for `x-gateway-custom-host`. */
  url: string;
  received: { method: string; path: string; headers: IncomingHttpHeaders; body: string }[];
  objects: Map<string, string>;
  close(): Promise<void>;
}

interface Job {
  arn: string;
  request: { modelId: string; roleArn: string; modelInvocationType?: string; inputDataConfig: { s3InputDataConfig: { s3Uri: string } }; outputDataConfig: { s3OutputDataConfig: { s3Uri: string } } };
  reads: number;
  status: string;
  running: Promise<void> | null;
}

export async function startBedrockBatches(converseUrl: (model: string) => string): Promise<BedrockBatches> {
  const received: BedrockBatches["received"] = [];
  const objects = new Map<string, string>();
  const jobs = new Map<string, Job>();
  const objectKey = (uri: string) => uri.replace(/^s3:\/\//, "");

  const run = async (job: Job) => {
    const input = objects.get(objectKey(job.request.inputDataConfig.s3InputDataConfig.s3Uri)) ?? "";
    const out: string[] = [];
    for (const line of input.split("\n").filter((text) => text.trim() !== "")) {
      const record = JSON.parse(line) as { recordId: string; modelInput: Record<string, unknown> };
      if (JSON.stringify(record.modelInput).includes("poison")) {
        out.push(JSON.stringify({ ...record, error: { errorCode: 400, errorMessage: "Malformed input request, please reformat your input and try again." } }));
        continue;
      }
      const answer = await fetch(converseUrl(job.request.modelId), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(record.modelInput) });
      out.push(JSON.stringify({ ...record, modelOutput: await answer.json() }));
    }
    const jobId = job.arn.slice(job.arn.lastIndexOf("/") + 1);
    objects.set(`${objectKey(job.request.outputDataConfig.s3OutputDataConfig.s3Uri)}${jobId}/input.jsonl.out`, `${out.join("\n")}\n`);
    job.status = "Completed";
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString("utf8");
        const path = req.url ?? "";
        received.push({ method: req.method ?? "", path, headers: req.headers, body });
        const reply = (status: number, answer: unknown, headers: Record<string, string> = { "content-type": "application/json" }) => {
          res.writeHead(status, headers);
          res.end(typeof answer === "string" ? answer : JSON.stringify(answer));
        };
        const authorization = String(req.headers.authorization ?? "");
        const control = path.startsWith("/model-invocation-job");
        if (!authorization.startsWith("AWS4-HMAC-SHA256 ") || !authorization.includes(control ? "/bedrock/aws4_request" : "/s3/aws4_request")) {
          return reply(403, { message: "The request signature we calculated does not match the signature you provided." }, { "content-type": "application/json", "x-amzn-errortype": "AccessDeniedException" });
        }
        if (!control) {
          if (req.headers["x-amz-content-sha256"] === undefined) return reply(400, "<Error><Code>MissingContentSHA256</Code></Error>", { "content-type": "application/xml" });
          const key = decodeURIComponent(path.slice(1));
          if (req.method === "PUT") {
            objects.set(key, body);
            return reply(200, "", {});
          }
          const object = objects.get(key);
          return object === undefined ? reply(404, "<Error><Code>NoSuchKey</Code></Error>", { "content-type": "application/xml" }) : reply(200, object, { "content-type": "application/octet-stream" });
        }
        const match = /^\/model-invocation-job(?:\/([^/]+))?(\/stop)?$/.exec(path);
        if (!match) return reply(404, { message: "Unknown operation" });
        const [, encodedArn, stop] = match;
        if (!encodedArn && req.method === "POST") {
          const request = JSON.parse(body) as Job["request"];
          const arn = `arn:aws:bedrock:us-east-1:123456789012:model-invocation-job/job${jobs.size + 1}abc`;
          jobs.set(arn, { arn, request, reads: 0, status: "Submitted", running: null });
          return reply(200, { jobArn: arn });
        }
        const job = jobs.get(decodeURIComponent(encodedArn ?? ""));
        if (!job) return reply(404, { message: "Could not find job" }, { "content-type": "application/json", "x-amzn-errortype": "ResourceNotFoundException" });
        if (stop) {
          job.status = "Stopping";
          return reply(200, {});
        }
        job.reads += 1;
        if (job.status === "Stopping" && job.reads >= 2) job.status = "Stopped";
        else if (job.reads === 1 && job.status === "Submitted") job.status = "InProgress";
        else if (job.reads >= 2 && (job.status === "InProgress" || job.running)) await (job.running ??= run(job));
        return reply(200, { jobArn: job.arn, jobName: "j", modelId: job.request.modelId, roleArn: job.request.roleArn, status: job.status, submitTime: new Date().toISOString(), inputDataConfig: job.request.inputDataConfig, outputDataConfig: job.request.outputDataConfig });
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    objects,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
