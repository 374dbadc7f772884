/**
 * The gateway as the tool loop of a Responses request whose `mcp` tools its upstream cannot run:
 * the servers' tools are offered to the model as functions, each call the model makes is run on
 * its server and its result fed back, round after round, until the model answers (the last
 * allowed round is asked to answer without tools). The client gets what OpenAI's hosted MCP
 * returns: `mcp_list_tools`, `mcp_call` (with `output` or `error`) and `mcp_approval_request`
 * items before the answer, as one response or as its stream of events. The first round's
 * failure is the target's (so a config may fall back): the run is left as it is, its sessions
 * open and its client still heard, for the next target. A later round's failure goes to the next
 * target by the failing one's fallback policy (`round-fallback.ts`), with the calls already run
 * and their outputs; when no target is left it ends the run.
 */
import { GatewayError, ok, type Result } from "../../../errors.ts";
import type { UpstreamCall } from "../../../net/upstream-call.ts";
import type { ToolRunContext } from "./tool-run-context.ts";
import { SILENT, streamedProgress } from "./run-events.ts";
import { RunDriver, type RoundCall, type ToolRunOptions } from "./run-driver.ts";

export type { RoundCall, ToolRunOptions } from "./run-driver.ts";

/** The run's answer as an upstream call in the client's format; a first round's failure as the target's own. */
export async function runTools(run: ToolRunContext, round: RoundCall, options: ToolRunOptions): Promise<Result<UpstreamCall, GatewayError>> {
  const driver = await RunDriver.prepare(run, round, options);
  if (!driver.ok) return driver;
  if (!options.stream) {
    const first = await driver.value.firstRound(SILENT);
    if (!first.ok) return first.failure;
    const answer = await driver.value.rest(SILENT);
    await run.close();
    if (!answer.ok) return answer.failure;
    return ok(clientCall(new Response(JSON.stringify(answer.response), { status: 200, headers: { "content-type": "application/json" } }), run));
  }
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const encoder = new TextEncoder();
  // Events wait here until the first round has answered: a body never handed out is dropped, not cancelled (that is the client leaving).
  const body = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
    cancel: () => run.clientClosed(),
  });
  const progress = streamedProgress((text) => {
    try {
      controller.enqueue(encoder.encode(text));
    } catch {
      // The client has gone: the run is being cancelled.
    }
  });
  const first = await driver.value.firstRound(progress);
  if (!first.ok) return first.failure;
  void driver.value.rest(progress).then(async () => {
    await run.close();
    try {
      controller.close();
    } catch {
      // Already cancelled.
    }
  });
  return ok(clientCall(new Response(body, { status: 200, headers: { "content-type": "text/event-stream; charset=utf-8" } }), run));
}

function clientCall(response: Response, run: ToolRunContext): UpstreamCall {
  return {
    response,
    abort: () => run.clientClosed(),
    done: () => undefined,
    classify: (error) => (error instanceof GatewayError ? error : new GatewayError("upstream_error", "The tool run's answer broke off.")),
    scrub: (text) => text,
    clientFormat: true,
  };
}

