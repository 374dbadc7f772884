/**
 * A batch's input file, read line by line as OpenAI's batch input (`{custom_id, method, url,
 * body}`) and translated with the provider's own chat transform: a provider's batch runs the
 * requests its chat endpoint would.
 * https://platform.openai.com/docs/api-reference/batch/request-input
 */
import { fail, GatewayError, ok, type Result } from "../errors.ts";
import type { TranslatedLine } from "../providers/batch.ts";
import type { JsonObject, Provider } from "../providers/provider.ts";

/** The one operation the gateway's batches run. */
export const BATCH_ENDPOINT = "/v1/chat/completions";

/** The most lines one batch takes (Anthropic's and Vertex AI's limits are at or above it). */
export const MAX_BATCH_LINES = 50_000;

export interface BatchInput {
  lines: TranslatedLine[];
  /** Each line's body as the client wrote it, by custom id: the output is translated back against it. */
  clientBodies: Map<string, JsonObject>;
}

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** The file's lines translated for `provider`, or a 400 naming the first line that cannot run. */
export function translateInput(content: string, provider: Provider): Result<BatchInput, GatewayError> {
  const refuse = (line: number, why: string) => fail(new GatewayError("invalid_request", `Line ${line} of the input file: ${why}.`, { param: "input_file_id" }));
  const transform = provider.operations.createChatCompletion;
  if (!provider.openaiFormat && !transform) return fail(new GatewayError("invalid_request", `${provider.name} has no chat completions to batch.`, { param: "endpoint" }));
  const lines: TranslatedLine[] = [];
  const clientBodies = new Map<string, JsonObject>();
  const texts = content.split("\n");
  for (const [index, text] of texts.entries()) {
    if (text.trim() === "") continue;
    const number = index + 1;
    if (lines.length >= MAX_BATCH_LINES) return refuse(number, `a batch takes at most ${MAX_BATCH_LINES} requests`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return refuse(number, "not a JSON object");
    }
    if (!isObject(parsed)) return refuse(number, "not a JSON object");
    const { custom_id: customId, method, url, body } = parsed;
    if (typeof customId !== "string" || customId === "") return refuse(number, "custom_id must be a non-empty string");
    if (clientBodies.has(customId)) return refuse(number, `custom_id ${JSON.stringify(customId.slice(0, 64))} is used twice`);
    if (method !== "POST") return refuse(number, "method must be POST");
    if (url !== BATCH_ENDPOINT) return refuse(number, `${provider.name} batches run ${BATCH_ENDPOINT} only, not ${JSON.stringify(String(url).slice(0, 100))}`);
    if (!isObject(body)) return refuse(number, "body must be a JSON object");
    if (typeof body.model !== "string" || body.model === "" || body.model.startsWith("@")) return refuse(number, "body.model must name the provider's model");
    if (body.stream === true) return refuse(number, "a batch request cannot stream");
    const translated = transform?.request ? transform.request(body, { model: body.model, stream: false }) : { body };
    if ("error" in translated) return refuse(number, translated.error.message.replace(/\.$/, ""));
    const line: TranslatedLine = { customId, model: body.model, body: translated.body, ...(translated.path !== undefined && { path: translated.path }) };
    const refused = provider.batch?.checkLine?.(line);
    if (refused) return refuse(number, refused);
    lines.push(line);
    clientBodies.set(customId, body);
  }
  if (lines.length === 0) return fail(new GatewayError("invalid_request", "The input file holds no requests.", { param: "input_file_id" }));
  return ok({ lines, clientBodies });
}
