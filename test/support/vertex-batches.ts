import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in for Vertex AI batch prediction and the Cloud Storage bucket it reads and writes, on
 * loopback, as Google documents them: Cloud Storage's JSON API (`POST
 * /upload/storage/v1/b/<bucket>/o?uploadType=media&name=…`, `GET /storage/v1/b/<bucket>/o/<object>?alt=media`)
 * and `projects.locations.batchPredictionJobs` (`create`, `get`, `:cancel`), each with a bearer
 * token. A job succeeds on its second read: each `{request}` line runs through
 * `generateUrl(model)` (aimock's generateContent), except one whose text holds "poison" (a line
 * with an error `status`), and the predictions are written, last line first, to
 * `<prefix>/prediction-model-<time>/predictions.jsonl`. A job cancelled before that ends cancelled.
 * https://cloud.google.com/vertex-ai/docs/reference/rest/v1/projects.locations.batchPredictionJobs
 */
export interface VertexBatches {
  /** Base URL for `x-gateway-custom-host` (ends in `/v1`). */
  url: string;
  received: { method: string; path: string; headers: IncomingHttpHeaders; body: string }[];
  objects: Map<string, string>;
  close(): Promise<void>;
}

interface Job {
  name: string;
  request: { model: string; inputConfig: { gcsSource: { uris: string[] } }; outputConfig: { gcsDestination: { outputUriPrefix: string } } };
  reads: number;
  state: string;
  output: string | null;
  running: Promise<void> | null;
}

export async function startVertexBatches(generateUrl: (model: string) => string, token: string): Promise<VertexBatches> {
  const received: VertexBatches["received"] = [];
  const objects = new Map<string, string>();
  const jobs = new Map<string, Job>();
  const uriKey = (uri: string) => uri.replace(/^gs:\/\//, "");

  const run = async (job: Job) => {
    const input = objects.get(uriKey(job.request.inputConfig.gcsSource.uris[0]!)) ?? "";
    const model = job.request.model.slice(job.request.model.lastIndexOf("/") + 1);
    const out: string[] = [];
    for (const line of input.split("\n").filter((text) => text.trim() !== "")) {
      const { request } = JSON.parse(line) as { request: Record<string, unknown> };
      if (JSON.stringify(request).includes("poison")) {
        out.push(JSON.stringify({ status: "Bad Request: the request was refused", processed_time: new Date().toISOString(), request }));
        continue;
      }
      const answer = await fetch(generateUrl(model), { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: JSON.stringify(request) });
      out.push(JSON.stringify({ status: "", processed_time: new Date().toISOString(), request, response: await answer.json() }));
    }
    const folder = `${job.request.outputConfig.gcsDestination.outputUriPrefix}/prediction-model-2026-12-02T08:00:00.000000Z`;
    objects.set(`${uriKey(folder)}/predictions.jsonl`, `${out.reverse().join("\n")}\n`);
    job.output = folder;
    job.state = "JOB_STATE_SUCCEEDED";
  };

  const view = (job: Job) => ({
    name: job.name,
    displayName: "batch",
    model: job.request.model,
    state: job.state,
    inputConfig: job.request.inputConfig,
    outputConfig: job.request.outputConfig,
    ...(job.output && { outputInfo: { gcsOutputDirectory: job.output }, completionStats: { successfulCount: "2", failedCount: "1", incompleteCount: "0" } }),
  });

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString("utf8");
        const url = new URL(req.url ?? "/", "http://stand-in");
        received.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
        const reply = (status: number, answer: unknown, type = "application/json") => {
          res.writeHead(status, { "content-type": type });
          res.end(typeof answer === "string" ? answer : JSON.stringify(answer));
        };
        if (req.headers.authorization !== `Bearer ${token}`) return reply(401, { error: { code: 401, message: "Request had invalid authentication credentials.", status: "UNAUTHENTICATED" } });
        const upload = /^\/upload\/storage\/v1\/b\/([^/]+)\/o$/.exec(url.pathname);
        if (upload && req.method === "POST" && url.searchParams.get("uploadType") === "media") {
          const name = url.searchParams.get("name") ?? "";
          objects.set(`${decodeURIComponent(upload[1]!)}/${name}`, body);
          return reply(200, { kind: "storage#object", bucket: decodeURIComponent(upload[1]!), name, size: String(Buffer.byteLength(body)) });
        }
        const download = /^\/storage\/v1\/b\/([^/]+)\/o\/([^/]+)$/.exec(url.pathname);
        if (download && req.method === "GET" && url.searchParams.get("alt") === "media") {
          const object = objects.get(`${decodeURIComponent(download[1]!)}/${decodeURIComponent(download[2]!)}`);
          return object === undefined ? reply(404, { error: { code: 404, message: "No such object", status: "NOT_FOUND" } }) : reply(200, object, "application/octet-stream");
        }
        const jobsPath = /^\/v1\/(projects\/[^/]+\/locations\/[^/]+\/batchPredictionJobs)(?:\/([^/:]+))?(:cancel)?$/.exec(url.pathname);
        if (!jobsPath) return reply(404, { error: { code: 404, message: "Not found", status: "NOT_FOUND" } });
        const [, parent, id, cancel] = jobsPath;
        if (!id && req.method === "POST") {
          const job: Job = { name: `${parent}/${1000 + jobs.size}`, request: JSON.parse(body) as Job["request"], reads: 0, state: "JOB_STATE_PENDING", output: null, running: null };
          jobs.set(job.name, job);
          return reply(200, view(job));
        }
        const job = jobs.get(`${parent}/${id}`);
        if (!job) return reply(404, { error: { code: 404, message: "Job not found", status: "NOT_FOUND" } });
        if (cancel) {
          job.state = "JOB_STATE_CANCELLING";
          return reply(200, {});
        }
        job.reads += 1;
        if (job.state === "JOB_STATE_CANCELLING" && job.reads >= 2) job.state = "JOB_STATE_CANCELLED";
        else if (job.state === "JOB_STATE_PENDING") job.state = "JOB_STATE_RUNNING";
        else if (job.state === "JOB_STATE_RUNNING" || job.running) await (job.running ??= run(job));
        return reply(200, view(job));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: `${base}/v1`, received, objects, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
