/**
 * The soak's traffic: a steady, open-loop mix of the requests a gateway sees in production,
 * each one's answer checked, so a fast failure cannot pass for a healthy run.
 */
import type { LLMock } from "@copilotkit/aimock";

export type Kind = "plain" | "stream" | "error" | "large" | "embeddings";

/** The mix, in parts out of 20: mostly chat, some streams, a share of failures and big bodies. */
export const MIX: ReadonlyArray<readonly [Kind, number]> = [
  ["plain", 8],
  ["stream", 6],
  ["error", 2],
  ["large", 2],
  ["embeddings", 2],
];

/** The status each kind must answer with; anything else counts as a failure. */
const EXPECTED: Record<Kind, number> = { plain: 200, stream: 200, error: 500, large: 200, embeddings: 200 };

/** A ~1 MiB user message (under the 32 MiB JSON limit, at the 1 MiB logged-body limit). */
const LARGE_TEXT = `soak large ${"lorem ipsum ".repeat(87_000)}`;

/** Teaches the aimock upstream its answers: text, a long-ish stream, a 500, an embedding. */
export function programUpstream(upstream: LLMock): void {
  const usage = { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 };
  upstream.onMessage("soak plain", { content: "A plain answer from the soak upstream.", usage });
  upstream.onMessage("soak stream", { content: "streamed ".repeat(200).trim(), usage });
  upstream.onMessage("soak error", { error: { message: "soak: injected upstream failure", type: "server_error" }, status: 500 });
  upstream.onMessage("soak large", { content: "Read the large body.", usage });
  upstream.onEmbedding("soak embed", { embedding: Array.from({ length: 256 }, (_, i) => i / 256) });
}

export interface Outcome {
  kind: Kind;
  ok: boolean;
  status: number;
  ms: number;
  logged: boolean;
  /** The start of an unexpected answer's body (or the error), to say what went wrong. */
  detail?: string;
}

/** Sends one request of `kind` and reads its answer to the end. Never throws. */
export async function send(kind: Kind, gatewayUrl: string, headers: Record<string, string>): Promise<Outcome> {
  const started = performance.now();
  const path = kind === "embeddings" ? "/v1/embeddings" : "/v1/chat/completions";
  const body =
    kind === "embeddings"
      ? { model: "text-embedding-3-small", input: "soak embed" }
      : {
          model: "gpt-4o-mini",
          stream: kind === "stream",
          messages: [{ role: "user", content: kind === "large" ? LARGE_TEXT : `soak ${kind}` }],
        };
  try {
    const response = await fetch(`${gatewayUrl}${path}`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    const complete = kind !== "stream" || text.includes("data: [DONE]");
    const ok = response.status === EXPECTED[kind] && complete;
    return {
      kind,
      ok,
      ...(ok ? {} : { detail: text.slice(0, 300) }),
      status: response.status,
      ms: performance.now() - started,
      logged: response.headers.has("x-gateway-log-id"),
    };
  } catch (error) {
    return { kind, ok: false, status: 0, ms: performance.now() - started, logged: false, detail: String(error) };
  }
}

/** The kind of the n-th request: the mix laid out in a fixed, interleaved order. */
export function kindAt(n: number): Kind {
  const total = MIX.reduce((sum, [, parts]) => sum + parts, 0);
  // A stride coprime with the total spreads each kind evenly over the cycle.
  let slot = (n * 7) % total;
  for (const [kind, parts] of MIX) {
    if (slot < parts) return kind;
    slot -= parts;
  }
  return "plain";
}
