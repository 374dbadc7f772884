import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in for Anthropic's Message Batches API on loopback, following its documented shapes:
 * `POST /v1/messages/batches` with `requests: [{custom_id, params}]`, `GET …/{id}` with
 * `processing_status` and `request_counts`, `GET …/{id}/results` as JSONL of
 * `{custom_id, result: {type, message | error}}`, `POST …/{id}/cancel`. A batch ends on its
 * second read: each request then runs through `messages` (aimock's `/v1/messages`), except a
 * `custom_id` starting with `bad` (errored) and every request of a batch cancelled before (canceled).
 * https://docs.anthropic.com/en/api/creating-message-batches
 */
export interface AnthropicBatches {
  /** Base URL to use as `x-gateway-custom-host` (ends in `/v1`). */
  url: string;
  /** Every request received: method, path, headers and parsed body. */
  received: { method: string; path: string; headers: IncomingHttpHeaders; body: unknown }[];
  close(): Promise<void>;
}

interface Job {
  id: string;
  requests: { custom_id: string; params: Record<string, unknown> }[];
  reads: number;
  cancelled: string | null;
  results: string[] | null;
  running: Promise<string[]> | null;
  created: string;
}

export async function startAnthropicBatches(messagesUrl: string): Promise<AnthropicBatches> {
  const received: AnthropicBatches["received"] = [];
  const jobs = new Map<string, Job>();
  let base = "";

  const view = (job: Job) => {
    const ended = job.results !== null;
    const count = (type: string) => (job.results ?? []).filter((line) => (JSON.parse(line) as { result: { type: string } }).result.type === type).length;
    return {
      id: job.id,
      type: "message_batch",
      processing_status: ended ? "ended" : job.cancelled ? "canceling" : "in_progress",
      request_counts: { processing: ended ? 0 : job.requests.length, succeeded: count("succeeded"), errored: count("errored"), canceled: count("canceled"), expired: count("expired") },
      created_at: job.created,
      expires_at: new Date(Date.parse(job.created) + 86_400_000).toISOString(),
      ended_at: ended ? new Date().toISOString() : null,
      cancel_initiated_at: job.cancelled,
      archived_at: null,
      results_url: ended ? `${base}/v1/messages/batches/${job.id}/results` : null,
    };
  };

  const run = async (job: Job): Promise<string[]> => {
    const lines: string[] = [];
    for (const request of job.requests) {
      let result: unknown;
      if (job.cancelled) result = { type: "canceled" };
      else if (request.custom_id.startsWith("bad")) result = { type: "errored", error: { type: "error", error: { type: "invalid_request_error", message: "max_tokens: too large for this model" } } };
      else {
        const answer = await fetch(messagesUrl, { method: "POST", headers: { "content-type": "application/json", "x-api-key": "k", "anthropic-version": "2023-06-01" }, body: JSON.stringify(request.params) });
        result = { type: "succeeded", message: await answer.json() };
      }
      lines.push(JSON.stringify({ custom_id: request.custom_id, result }));
    }
    return lines;
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      void (async () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const path = req.url ?? "";
        received.push({ method: req.method ?? "", path, headers: req.headers, body: text ? JSON.parse(text) : null });
        const reply = (status: number, body: unknown, type = "application/json") => {
          res.writeHead(status, { "content-type": type });
          res.end(typeof body === "string" ? body : JSON.stringify(body));
        };
        if (req.headers["x-api-key"] === undefined || req.headers["anthropic-version"] !== "2023-06-01") return reply(401, { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } });
        const match = /^\/v1\/messages\/batches(?:\/([^/]+))?(\/results|\/cancel)?$/.exec(path);
        if (!match) return reply(404, { type: "error", error: { type: "not_found_error", message: "Not found" } });
        const [, id, action] = match;
        if (!id && req.method === "POST") {
          const job: Job = { id: `msgbatch_${jobs.size + 1}`, requests: (JSON.parse(text) as { requests: Job["requests"] }).requests, reads: 0, cancelled: null, results: null, running: null, created: new Date().toISOString() };
          jobs.set(job.id, job);
          return reply(200, view(job));
        }
        const job = id ? jobs.get(id) : undefined;
        if (!job) return reply(404, { type: "error", error: { type: "not_found_error", message: "No such batch" } });
        if (action === "/results") return job.results ? reply(200, `${job.results.join("\n")}\n`, "application/binary") : reply(400, { type: "error", error: { type: "invalid_request_error", message: "Batch has not ended" } });
        if (action === "/cancel") {
          job.cancelled ??= new Date().toISOString();
          return reply(200, view(job));
        }
        job.reads += 1;
        // Two readers at once share one run.
        if (job.reads >= 2 && job.results === null) job.results = await (job.running ??= run(job));
        return reply(200, view(job));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/v1`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
