/**
 * A provider's batch results as OpenAI's batch output: each line translated back with the
 * provider's chat transform (`{id, custom_id, response: {status_code, request_id, body}, error}`),
 * successes in the output file and failures in the error file, as OpenAI splits them; and each
 * line's log entry, priced at the provider's batch rate.
 * https://platform.openai.com/docs/api-reference/batch/request-output
 */
import { chatAnswers } from "../families/chat/index.ts";
import { capText } from "../lib/body-capture.ts";
import { isoNow, uuidv7 } from "../lib/ids.ts";
import type { LogEntry } from "../logging/log-entry.ts";
import { computeBatchCostUsd } from "../operation/cost.ts";
import type { BatchLineResult } from "../providers/batch.ts";
import { isUnusableAnswer, type JsonObject, type Provider } from "../providers/provider.ts";
import { requestLineId } from "./ids.ts";

export interface BatchOutput {
  output: string[];
  errors: string[];
  /** One entry per result line, built once; logged only for the lines this replica claims. */
  entries: { customId: string; entry: LogEntry }[];
  succeeded: number;
  failed: number;
}

/** Who the batch's log entries belong to. */
export interface BatchCaller {
  organisationId: string;
  workspaceId: string;
  apiKeyId: string | null;
  virtualKeyId: string | null;
}

export function batchOutput(
  results: readonly BatchLineResult[],
  context: { batchId: string; provider: Provider; clientBodies: ReadonlyMap<string, JsonObject>; caller: BatchCaller; maxLoggedBodyBytes: number },
): BatchOutput {
  const out: BatchOutput = { output: [], errors: [], entries: [], succeeded: 0, failed: 0 };
  const translate = context.provider.operations.createChatCompletion?.response;
  const seen = new Set<string>();
  for (const result of results) {
    // A line the input never had is not the client's, and a request answered twice counts once (its first answer): both are left out.
    const clientBody = context.clientBodies.get(result.customId);
    if (!clientBody || seen.has(result.customId)) continue;
    seen.add(result.customId);
    const id = requestLineId(context.batchId, result.customId);
    const model = String(clientBody.model);
    if (result.kind === "succeeded") {
      const completion = translate ? translate(result.answer, { clientBody, model }) : result.answer;
      if (isUnusableAnswer(completion)) {
        // The provider's answer lacks what a completion needs: the line failed upstream.
        const { code, message } = completion.unusable;
        out.errors.push(JSON.stringify({ id, custom_id: result.customId, response: null, error: { code, message } }));
        out.failed += 1;
        continue;
      }
      const requestId = typeof result.answer.id === "string" ? result.answer.id : id;
      out.output.push(JSON.stringify({ id, custom_id: result.customId, response: { status_code: 200, request_id: requestId, body: completion }, error: null }));
      out.entries.push({ customId: result.customId, entry: lineEntry(context, result.customId, clientBody, model, { status: 200, body: completion, error: null }) });
      out.succeeded += 1;
      continue;
    }
    const error = { message: result.message, type: result.kind === "errored" ? "invalid_request_error" : result.code, code: result.code, param: null };
    const line = result.kind === "errored"
      ? { id, custom_id: result.customId, response: { status_code: result.status, request_id: id, body: { error } }, error: null }
      : { id, custom_id: result.customId, response: null, error: { code: result.code, message: result.message } };
    out.errors.push(JSON.stringify(line));
    if (result.kind === "errored") out.entries.push({ customId: result.customId, entry: lineEntry(context, result.customId, clientBody, model, { status: result.status, body: { error }, error: { code: result.code, message: result.message } }) });
    out.failed += 1;
  }
  return out;
}

/** A result line's log entry: the line's request and answer, tokens read as chat's, cost at the batch rate. */
function lineEntry(
  context: { batchId: string; provider: Provider; caller: BatchCaller; maxLoggedBodyBytes: number },
  customId: string,
  clientBody: JsonObject,
  model: string,
  answer: { status: number; body: JsonObject; error: { code: string; message: string } | null },
): LogEntry {
  const now = Date.now();
  const id = uuidv7(now);
  const requestText = capText(JSON.stringify(clientBody), context.maxLoggedBodyBytes);
  const responseText = capText(JSON.stringify(answer.body), context.maxLoggedBodyBytes);
  const usage = answer.error ? null : chatAnswers.usage(answer.body.usage);
  const servedModel = typeof answer.body.model === "string" ? answer.body.model : model;
  return {
    id,
    createdAt: isoNow(now),
    organisationId: context.caller.organisationId,
    workspaceId: context.caller.workspaceId,
    apiKeyId: context.caller.apiKeyId,
    virtualKeyId: context.caller.virtualKeyId,
    provider: context.provider.id,
    model,
    route: "createBatch",
    // The line's own operation: the batch is in the metadata.
    method: "POST",
    path: "/v1/chat/completions",
    status: answer.status,
    stream: false,
    cacheStatus: null,
    cacheSimilarity: null,
    cacheSourceLogId: null,
    cacheNote: null,
    latencyMs: 0,
    timeToFirstTokenMs: null,
    user: typeof clientBody.user === "string" ? clientBody.user : null,
    metadata: { batch_id: context.batchId, custom_id: customId },
    traceId: id,
    spanId: null,
    parentSpanId: null,
    spanName: null,
    requestBody: requestText.text,
    requestBodyTruncated: requestText.truncated,
    requestBodyBytes: requestText.totalBytes,
    response: { kind: "json-text", text: responseText.text, totalBytes: responseText.totalBytes, truncated: responseText.truncated, tail: null },
    errorCode: answer.error?.code ?? null,
    errorMessage: answer.error?.message.slice(0, 1000) ?? null,
    promptId: null,
    promptVersion: null,
    configId: null,
    configVersion: null,
    experimentId: null,
    experimentVariant: null,
    guardrailResults: null,
    attempts: [],
    toolRun: [],
    format: chatAnswers.name,
    genAiOperation: "chat",
    fixedCostUsd: usage ? computeBatchCostUsd(context.provider.id, servedModel, usage) : null,
  };
}
