/**
 * What checking a request costs, in µs per call: the generated check of a chat body alone, the
 * route's body schema (the depth guard, the check, zod only on a refusal), the gateway headers'
 * check, and a whole chat request read and checked through Hono in process (the reader of the
 * proxied routes). Median of alternated rounds, so a busy moment of the machine spreads over all.
 *
 *   npx tsx scripts/bench/request-checks.ts
 */
import { Hono } from "hono";
import { validationHook } from "../../src/app-errors.ts";
import { createChatCompletionBodyCheck, parameterChecks } from "../../src/generated/request-checks.gen.ts";
import { createChatCompletionRoute } from "../../src/generated/routes.gen.ts";
import { compileRequestReader } from "../../src/routes/proxy/request-reader.ts";
import { chatBody } from "./fixtures.ts";

/** The gateway headers a proxied chat request typically carries, with others beside them. */
const HEADERS = {
  "x-gateway-api-key": "gw-key",
  "x-gateway-provider": "openai",
  authorization: "Bearer sk-upstream",
  "x-gateway-trace-id": "trace-1",
  "x-gateway-custom-host": "http://127.0.0.1:9/v1",
  "x-gateway-request-timeout": "30000",
  "user-agent": "bench",
  accept: "application/json",
};

/** A chat body of 20 messages (text and content parts) and 5 function tools, about 6 KB. */
function toolChatBody(): string {
  const tool = (index: number) => ({ type: "function", function: { name: `tool_${index}`, description: "Looks something up.", parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } } });
  const messages = Array.from({ length: 20 }, (_, index) =>
    index % 2 ? { role: "assistant", content: "An answer of some length, ".repeat(8) } : { role: "user", content: [{ type: "text", text: "A question of some length, ".repeat(8) }] },
  );
  return JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "system", content: "Be brief." }, ...messages], tools: Array.from({ length: 5 }, (_, index) => tool(index)), temperature: 0.2, max_tokens: 256, metadata: { team: "search" }, stream: true, stream_options: { include_usage: true } });
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** µs per call of `run`, median of `rounds` rounds of `calls` calls each (after one round of warm-up). */
async function perCall(run: () => unknown, calls: number, rounds = 9): Promise<number> {
  for (let index = 0; index < calls; index += 1) await run();
  const times: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const started = performance.now();
    for (let index = 0; index < calls; index += 1) await run();
    times.push(((performance.now() - started) * 1_000) / calls);
  }
  return median(times);
}

async function main(): Promise<void> {
  const small = chatBody;
  const large = toolChatBody();
  const body = createChatCompletionRoute.request.body.content["application/json"].schema;
  const headerCheck = parameterChecks.createChatCompletion!.header!;
  const headers = new Headers(HEADERS);
  const read = compileRequestReader({ ...createChatCompletionRoute, middleware: undefined }, validationHook as never)!;
  const app = new Hono();
  app.post("/v1/chat/completions", async (c) => {
    await read(c as never);
    return c.body(null, 204);
  });
  const request = (text: string) => app.request("/v1/chat/completions", { method: "POST", headers: { ...HEADERS, "content-type": "application/json" }, body: text });

  const figures: Array<[string, number]> = [];
  for (const [name, text] of [[`the bench's chat body (${small.length} B)`, small], [`a chat body with tools (${large.length} B)`, large]] as const) {
    const value = JSON.parse(text) as unknown;
    figures.push([`JSON.parse of ${name}`, await perCall(() => JSON.parse(text), 20_000)]);
    figures.push([`generated check of ${name}`, await perCall(() => createChatCompletionBodyCheck(value), 20_000)]);
    figures.push([`route body schema on ${name}`, await perCall(() => body.safeParse(value), 20_000)]);
    figures.push([`request read through Hono, ${name}`, await perCall(() => request(text), 2_000)]);
  }
  figures.push(["gateway headers' check (8 headers sent)", await perCall(() => headerCheck(headers), 50_000)]);
  for (const [name, us] of figures) console.log(`${us.toFixed(2).padStart(9)} µs  ${name}`);
}

await main();
