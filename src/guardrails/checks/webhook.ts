/**
 * `webhook` — asks your service for the verdict. Params:
 * - `url`: absolute `http:`/`https:` URL without credentials (≤ 2048 characters). Before each call
 *   it passes the gateway's custom-host (SSRF) check; a refused URL fails the check. The call
 *   (`ctx.fetch`, the gateway's pinned fetch) connects only to the addresses that check allowed.
 * - `headers`: up to 20 extra request headers (e.g. an `authorization` secret); `host`,
 *   `content-type`, `content-length`, `connection` and `transfer-encoding` are the gateway's.
 *   Header values are never echoed in explanations or data.
 * - `timeout_ms`: 1–30000, default 3000, for the whole call (answer body included).
 * The gateway POSTs `{"text", "stage", "model", "metadata"}` as JSON, follows no redirect, and
 * expects a 2xx JSON answer `{"verdict": boolean, "explanation"?: string, "data"?: object}`.
 * Anything else (non-2xx, not JSON, no boolean verdict, an answer over 1 MB, unreachable, timeout)
 * fails the check; an answer is read only up to 1 MB.
 */
import { z } from "zod";
import { shorten } from "../limits.ts";
import { defineCheck } from "../types.ts";

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 3000;
export const MAX_WEBHOOK_TIMEOUT_MS = 30_000;
const MAX_ANSWER_BYTES = 1_000_000;
const MAX_DATA_CHARS = 10_000;
const RESERVED_HEADERS = new Set(["host", "content-type", "content-length", "connection", "transfer-encoding"]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const url = z
  .string()
  .max(2048)
  .superRefine((raw, ctx) => {
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      ctx.addIssue({ code: "custom", message: "must be an absolute URL" });
      return;
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") ctx.addIssue({ code: "custom", message: "must be an http or https URL" });
    if (parsed.username || parsed.password) ctx.addIssue({ code: "custom", message: "must not carry credentials; send them in headers" });
  });

const headers = z
  .record(
    z.string().regex(HEADER_NAME, "header names must be HTTP tokens").refine((name) => !RESERVED_HEADERS.has(name.toLowerCase()), "this header is set by the gateway"),
    z.string().max(4096).regex(/^[^\r\n\0]*$/, "header values must not contain line breaks"),
  )
  .refine((value) => Object.keys(value).length <= 20, "at most 20 headers");

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function failure(explanation: string, status?: number) {
  return { verdict: false, explanation, ...(status === undefined ? {} : { data: { status } }) };
}

/**
 * The answer's text, or null once it passes `maxBytes` (whatever `Content-Length` says, a
 * chunked answer has none); the rest is then never read.
 */
async function readUpTo(response: Response, maxBytes: number): Promise<string | null> {
  if (Number(response.headers.get("content-length") ?? 0) > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return null;
  }
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

export const webhook = defineCheck({
  type: "webhook",
  params: z.strictObject({
    url,
    headers: headers.optional(),
    timeout_ms: z.int().min(1).max(MAX_WEBHOOK_TIMEOUT_MS).optional(),
  }),
  // The call's own timeout, plus a margin, so the runner's limit never fires first.
  timeoutMs: (params) => (params.timeout_ms ?? DEFAULT_WEBHOOK_TIMEOUT_MS) + 1000,
  run: async (params, ctx) => {
    const checked = await ctx.checkUrl(params.url, "The webhook url");
    if (!checked.ok) return failure(`The webhook URL was refused: ${checked.error.message}`);
    const timeoutMs = params.timeout_ms ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = ctx.signal ? AbortSignal.any([timeout, ctx.signal]) : timeout;
    const body = JSON.stringify({ text: ctx.text, stage: ctx.stage, model: ctx.model, metadata: ctx.metadata });

    let status: number;
    let raw: string;
    try {
      const response = await ctx.fetch(checked.value.href, {
        method: "POST",
        headers: { ...params.headers, "content-type": "application/json", accept: "application/json" },
        body,
        signal,
        redirect: "manual",
      });
      status = response.status;
      if (status < 200 || status > 299) {
        await response.body?.cancel().catch(() => undefined);
        return failure(`The webhook answered HTTP ${status}.`, status);
      }
      const answer = await readUpTo(response, MAX_ANSWER_BYTES);
      if (answer === null) return failure(`The webhook's answer is larger than ${MAX_ANSWER_BYTES} bytes.`, status);
      raw = answer;
    } catch {
      if (timeout.aborted) return failure(`The webhook did not answer within ${timeoutMs} ms.`);
      if (ctx.signal?.aborted) return failure("The request was cancelled before the webhook answered.");
      return failure("The webhook could not be reached.");
    }

    let answer: unknown;
    try {
      answer = JSON.parse(raw);
    } catch {
      return failure("The webhook's answer is not JSON.", status);
    }
    if (!isRecord(answer) || typeof answer.verdict !== "boolean") return failure("The webhook's answer has no boolean verdict.", status);
    const explanation =
      typeof answer.explanation === "string" && answer.explanation.trim()
        ? shorten(answer.explanation.trim(), 500)
        : `The webhook ${answer.verdict ? "passed" : "failed"} the text.`;
    const data = isRecord(answer.data) && JSON.stringify(answer.data).length <= MAX_DATA_CHARS ? answer.data : undefined;
    return { verdict: answer.verdict, explanation, data: { status, ...(data ? { response: data } : {}) } };
  },
});
