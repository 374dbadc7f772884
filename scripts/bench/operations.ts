/**
 * Two operations beyond chat, measured on their own: a streamed Responses answer (time to its
 * first event, sequential requests) and a 100 MiB multipart upload to `/v1/files` (throughput,
 * and the gateway's RSS growth while it passes). Direct and gateway only: the floor proxy reads
 * a body whole, which would say nothing about streaming an upload.
 */
import { request, type Agent } from "node:http";
import { performance } from "node:perf_hooks";
import { responsesStreamBody } from "./fixtures.ts";
import { createClient } from "./http-driver.ts";
import { readVm, watchPeak, type PeakWatch } from "./memory.ts";
import { median, round } from "./stats.ts";
import type { Target, TargetName } from "./targets.ts";

export const UPLOAD_MIB = 100;
const MIB = 1024 * 1024;
const BOUNDARY = "bench-upload-boundary";

export interface OperationFigures {
  /** Send to the first complete SSE event of a streamed Responses answer, ms (median). */
  firstEventP50Ms: number;
  firstEventSamples: number;
  /** Median of the upload runs, MiB/s. */
  uploadMibPerSecond: number;
  uploadRuns: number[];
  /** Largest VmRSS growth of the target's process during an upload over its level just before, MiB. */
  uploadRssGrowthMib: number;
  /** The target process's highest RSS over all its uploads, MB (its own phase, apart from the chat load's peak). */
  uploadPeakRssMb: number;
  errors: number;
}

const at = (target: Target, path: string): string => target.url.replace(/\/chat\/completions$/, path);

/** Sends one streamed Responses request; resolves with the time to its first whole event, NaN if none. */
function firstEvent(target: Target, agent: Agent): Promise<number> {
  return new Promise((done, fail) => {
    const started = performance.now();
    let first = Number.NaN;
    let text = "";
    const req = request(at(target, "/responses"), { method: "POST", agent, headers: target.headers }, (res) => {
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        if (!Number.isNaN(first)) return;
        text += chunk;
        if (/^data: /m.test(text) && text.includes("\n\n")) first = performance.now() - started;
      });
      res.on("end", () => done(res.statusCode === 200 ? first : Number.NaN));
      res.on("error", fail);
    });
    req.on("error", fail);
    req.end(responsesStreamBody);
  });
}

/**
 * Uploads `UPLOAD_MIB` MiB as one multipart form with a declared length, written from one 1 MiB
 * buffer reused (the client never holds the file), honouring backpressure. Resolves with MiB/s.
 */
function upload(target: Target, agent: Agent): Promise<number> {
  const head = Buffer.from(
    `--${BOUNDARY}\r\ncontent-disposition: form-data; name="purpose"\r\n\r\nbatch\r\n` +
      `--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="bench.jsonl"\r\ncontent-type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const block = Buffer.alloc(MIB, 0x61);
  const headers = {
    ...target.headers,
    "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
    "content-length": String(head.byteLength + UPLOAD_MIB * MIB + tail.byteLength),
  };
  return new Promise((done, fail) => {
    const started = performance.now();
    const req = request(at(target, "/files"), { method: "POST", agent, headers }, (res) => {
      res.resume();
      res.on("end", () => (res.statusCode === 200 ? done(UPLOAD_MIB / ((performance.now() - started) / 1000)) : fail(new Error(`upload: ${res.statusCode}`))));
      res.on("error", fail);
    });
    req.on("error", fail);
    void (async () => {
      req.write(head);
      for (let i = 0; i < UPLOAD_MIB; i += 1) {
        if (!req.write(block)) await new Promise((drained) => req.once("drain", drained));
      }
      req.end(tail);
    })();
  });
}

/** Runs `work` while sampling `pid`'s VmRSS every 20 ms; resolves with its result and the growth, MiB. */
async function withRssGrowth<T>(pid: number | undefined, work: () => Promise<T>): Promise<{ value: T; growthMib: number }> {
  if (pid === undefined) return { value: await work(), growthMib: Number.NaN };
  const before = readVm(pid, "VmRSS");
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, readVm(pid, "VmRSS"))), 20);
  try {
    const value = await work();
    peak = Math.max(peak, readVm(pid, "VmRSS"));
    return { value, growthMib: peak - before };
  } finally {
    clearInterval(timer);
  }
}

/** Sequential Responses streams (alternating targets), then `uploads` uploads per target (alternating). */
export async function measureOperations(
  targets: Target[],
  pids: Partial<Record<TargetName, number>>,
  options: { streams: number; uploads: number },
  progress: (line: string) => void,
): Promise<Partial<Record<TargetName, OperationFigures>>> {
  // The cache target is the gateway's own process: its uploads and stored Responses are never cached.
  // Anthropic serves neither operation; the floors serve plain chat only.
  const measured = targets.filter((target) => target.name !== "floor" && target.name !== "logged" && target.name !== "cache" && target.name !== "anthropic");
  const clients = measured.map((target) => createClient(target, 1));
  const samples = new Map(measured.map((target) => [target.name, { first: [] as number[], rates: [] as number[], growth: [] as number[], errors: 0 }]));
  progress(`Responses streams: ${options.streams} sequential per target`);
  for (let i = 0; i < options.streams; i += 1) {
    for (const client of clients) {
      const own = samples.get(client.target.name)!;
      const ms = await firstEvent(client.target, client.agent).catch(() => Number.NaN);
      if (Number.isNaN(ms)) own.errors += 1;
      else if (i >= options.streams / 10) own.first.push(ms); // the first tenth warms up
    }
  }
  // Memory is the gateway's to watch: direct is the upstream itself.
  const uploadPid = (name: TargetName): number | undefined => (name === "direct" ? undefined : pids[name]);
  const peaks = new Map<number, PeakWatch>();
  for (const target of measured) {
    const pid = uploadPid(target.name);
    if (pid !== undefined && !peaks.has(pid)) peaks.set(pid, watchPeak(pid));
  }
  for (let i = 0; i < options.uploads; i += 1) {
    for (const client of clients) {
      const own = samples.get(client.target.name)!;
      const pid = uploadPid(client.target.name);
      const run = await withRssGrowth(pid, () => upload(client.target, client.agent)).catch(() => undefined);
      if (run === undefined) own.errors += 1;
      else {
        own.rates.push(run.value);
        own.growth.push(run.growthMib);
      }
      progress(`upload ${i + 1}/${options.uploads}: ${client.target.name} ${run ? `${round(run.value, 0)} MiB/s` : "failed"}`);
    }
  }
  const uploadPeak = new Map([...peaks].map(([pid, watch]) => [pid, watch.stop()]));
  for (const client of clients) client.agent.destroy();
  const figures: Partial<Record<TargetName, OperationFigures>> = {};
  for (const [name, own] of samples) {
    figures[name] = {
      firstEventP50Ms: round(median(own.first)),
      firstEventSamples: own.first.length,
      uploadMibPerSecond: round(median(own.rates), 0),
      uploadRuns: own.rates.map((rate) => round(rate, 0)),
      uploadRssGrowthMib: own.growth.length === 0 ? Number.NaN : round(Math.max(...own.growth), 1),
      uploadPeakRssMb: round(uploadPeak.get(uploadPid(name) ?? -1) ?? Number.NaN, 1),
      errors: own.errors,
    };
  }
  return figures;
}
