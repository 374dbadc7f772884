import { fail, GatewayError, ok, type Result } from "../errors.ts";
import { credentialScrubber } from "./sent-credentials.ts";
import { UPSTREAM_HEADER_BLOCK_BYTES } from "./header-rules.ts";

/** One request as it leaves for the upstream. A provider's `authorize` sees it final (SigV4 signs URL, headers and body). */
export interface UpstreamRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** Text for JSON bodies; a stream for bodies passed as the client sends them; null when none. */
  body: string | ReadableStream<Uint8Array> | null;
}

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** An upstream request in flight: its response, and how to end it. */
export interface UpstreamCall {
  response: Response;
  /** Aborts the upstream request (client went away). */
  abort(): void;
  /** Stops the timeout clock; call when the body has been read. */
  done(): void;
  /** Maps an error thrown while reading the body (timeout, reset, abort) to the gateway's error. */
  classify(error: unknown): GatewayError;
  /**
   * The text with every credential this request sent (headers, URL query) replaced by
   * `[redacted]`: for error answers, before they reach the client or the log.
   */
  scrub(text: string): string;
  /**
   * Set when the gateway made the answer itself in the client's own format (a tool run's final
   * response, or its server-sent events): no provider transform applies to it.
   */
  clientFormat?: true;
}

export interface UpstreamCallOptions {
  timeoutMs: number;
  clientSignal?: AbortSignal;
  fetch: FetchLike;
  providerName: string;
}

/**
 * Sends the request upstream with a timeout and client-abort propagation. Never throws:
 * timeouts become 408, network failures 502, a client that left 499.
 */
export async function callUpstream(request: UpstreamRequest, options: UpstreamCallOptions): Promise<Result<UpstreamCall, GatewayError>> {
  const controller = new AbortController();
  let reason: "timeout" | "client" | null = null;
  const timer = setTimeout(() => {
    reason ??= "timeout";
    controller.abort();
  }, options.timeoutMs);
  const onClientAbort = (): void => {
    reason ??= "client";
    controller.abort();
  };
  options.clientSignal?.addEventListener("abort", onClientAbort, { once: true });
  const done = (): void => {
    clearTimeout(timer);
    options.clientSignal?.removeEventListener("abort", onClientAbort);
  };
  const classify = (error: unknown): GatewayError => {
    if (reason === "timeout") {
      return new GatewayError("request_timeout", `${options.providerName} did not answer within ${options.timeoutMs} ms.`);
    }
    if (reason === "client") return new GatewayError("client_closed", "The client closed the request.");
    // A body passed as it arrives can fail on the client's side (too large, broken off).
    const own = error instanceof GatewayError ? error : (error as { cause?: unknown } | null)?.cause;
    if (own instanceof GatewayError) return own;
    const detail = error instanceof Error ? describeNetworkError(error) : "connection failed";
    return new GatewayError("upstream_unreachable", `Could not reach ${options.providerName}: ${detail}.`);
  };

  try {
    const init: RequestInit & { duplex?: "half" } = {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: controller.signal,
      // A redirect could lead past the custom-host guard (e.g. to a metadata address).
      redirect: "manual",
    };
    // A body passed as the client sends it streams upstream as it arrives (fetch requires saying so).
    if (request.body instanceof ReadableStream) init.duplex = "half";
    const response = await options.fetch(request.url, init);
    return ok({ response, abort: onClientAbort, done, classify, scrub: credentialScrubber(request) });
  } catch (error) {
    done();
    // A header HTTP cannot carry comes from a stored value saved before such values were
    // refused (a key with a line break): the request's own problem, not the upstream's.
    const unsendable = unsendableHeader(request.headers);
    if (unsendable !== null && reason === null) {
      return fail(new GatewayError("invalid_request", `The ${unsendable} header for ${options.providerName} holds characters an HTTP header cannot carry; save the stored key or setting it comes from again.`));
    }
    return fail(classify(error));
  }
}

/** The name of the first header whose value HTTP cannot carry (a control character, or past Latin-1), or null. */
function unsendableHeader(headers: Record<string, string>): string | null {
  for (const [name, value] of Object.entries(headers)) {
    if (/[\u0000-\u0008\u000a-\u001f\u007f]|[^\u0000-\u00ff]/.test(value)) return name;
  }
  return null;
}

/** Node's and Bun's names for an answer whose header block is past what they read. */
const HEADERS_TOO_LARGE: ReadonlySet<unknown> = new Set(["UND_ERR_HEADERS_OVERFLOW", "ResponseHeadersTooLarge"]);

/** A short cause without URLs or headers (which could carry credentials). */
function describeNetworkError(error: Error): string {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  const code = (error as { code?: unknown }).code ?? cause?.code;
  if (HEADERS_TOO_LARGE.has(code)) return `its answer's headers are over ${UPSTREAM_HEADER_BLOCK_BYTES / 1024 / 1024} MiB in all`;
  if (typeof code === "string") return code;
  return error.name === "TypeError" ? "connection failed" : error.name;
}
