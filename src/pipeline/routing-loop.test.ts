import { describe, expect, it } from "vitest";
import { GatewayError, fail, ok } from "../errors.ts";
import type { AttemptRecord } from "../records/log-record.ts";
import { findProvider } from "../providers/catalogue.ts";
import { LocalCircuitBreakers } from "./circuit-breaker.ts";
import { DEFAULT_RETRY_STATUSES, type BreakerPolicy, type RetryPolicy } from "./routing-plan.ts";
import { ANSWER_AS_IS, MAX_RETRY_AFTER_MS, retryDelayMs, tryTargets, type Candidate, type LoopOptions } from "./routing-loop.ts";
import type { FallbackPolicy } from "./routing-plan.ts";
import type { UpstreamCall } from "../net/upstream-call.ts";

const openai = findProvider("openai")!;
const groq = findProvider("groq")!;
const NO_RETRY: RetryPolicy = { attempts: 0, statuses: DEFAULT_RETRY_STATUSES };

function candidate(index: number, provider = openai, fallback: FallbackPolicy = ANSWER_AS_IS, extra: Partial<Candidate> = {}): Candidate {
  return {
    index,
    path: String(index),
    settings: {},
    fallback,
    retry: NO_RETRY,
    breaker: null,
    target: { provider, baseUrl: provider.baseUrl!, credentials: { style: "bearer", apiKey: null, organization: null, project: null, fields: {} }, model: `model-${index}`, virtualKeyId: null },
    ...extra,
  };
}

function answer(status: number, headers: Record<string, string> = {}): UpstreamCall & { aborted: boolean } {
  const call = {
    aborted: false,
    response: new Response("{}", { status, headers }),
    abort() {
      call.aborted = true;
    },
    done() {},
    classify: () => new GatewayError("upstream_unreachable", "unreachable"),
    scrub: (text: string) => text,
  };
  return call;
}

const ON_5XX: FallbackPolicy = { statuses: new Set([500, 503]), unreachable: true };
const waits: number[] = [];
const options = (attempts: AttemptRecord[], extra: Partial<LoopOptions> = {}): LoopOptions => ({
  attempts,
  breakers: null,
  replayable: true,
  sleep: async (ms) => {
    waits.push(ms);
    return true;
  },
  random: () => 1,
  ...extra,
});

describe("tryTargets", () => {
  it("answers with a single target whatever it answers, and records the try", async () => {
    const attempts: AttemptRecord[] = [];
    const before = Date.now();
    const result = await tryTargets([candidate(0)], async () => ok(answer(503)), options(attempts));
    expect(result.ok && result.value.call.response.status).toBe(503);
    expect(attempts).toEqual([expect.objectContaining({ target: 0, path: "0", retry: 0, provider: "openai", model: "model-0", status: 503, errorCode: null })]);
    expect(attempts[0]!.latencyMs).toBeGreaterThanOrEqual(0);
    // The wall-clock start the trace spans are placed by.
    expect(attempts[0]!.startedAt).toBeGreaterThanOrEqual(before);
    expect(attempts[0]!.startedAt).toBeLessThanOrEqual(Date.now());
  });

  it("moves past a status its policy names, cancelling that answer, and records every try in order", async () => {
    const attempts: AttemptRecord[] = [];
    const calls = [answer(503), answer(200)];
    const result = await tryTargets([candidate(0, openai, ON_5XX), candidate(1, groq)], async ({ index }) => ok(calls[index]!), options(attempts));
    expect(result.ok && result.value.candidate.index).toBe(1);
    expect(calls[0]!.aborted).toBe(true);
    expect(attempts.map(({ target, provider, status }) => ({ target, provider, status }))).toEqual([
      { target: 0, provider: "openai", status: 503 },
      { target: 1, provider: "groq", status: 200 },
    ]);
  });

  it("moves past an unreachable target only when its policy says so", async () => {
    const unreachable = async ({ index }: Candidate) =>
      index === 0 ? fail(new GatewayError("upstream_unreachable", "Could not reach OpenAI: ECONNREFUSED.")) : ok(answer(200));
    const attempts: AttemptRecord[] = [];
    const moved = await tryTargets([candidate(0, openai, ON_5XX), candidate(1)], unreachable, options(attempts));
    expect(moved.ok).toBe(true);
    expect(attempts[0]).toMatchObject({ status: null, errorCode: "upstream_unreachable", errorMessage: "Could not reach OpenAI: ECONNREFUSED." });

    const stayed = await tryTargets([candidate(0), candidate(1)], unreachable, options([]));
    expect(stayed.ok).toBe(false);
    expect(!stayed.ok && stayed.error.code).toBe("upstream_unreachable");
  });

  it("never moves past a client that left, nor past the last candidate", async () => {
    const attempts: AttemptRecord[] = [];
    const gone = await tryTargets([candidate(0, openai, ON_5XX), candidate(1)], async () => fail(new GatewayError("client_closed", "gone")), options(attempts));
    expect(!gone.ok && gone.error.code).toBe("client_closed");
    expect(attempts).toHaveLength(1);

    const last = await tryTargets([candidate(0, openai, ON_5XX), candidate(1, groq, ON_5XX)], async () => ok(answer(500)), options([]));
    expect(last.ok && last.value.candidate.index).toBe(1);
  });

  it("retries a listed status with backoff, then falls back, and counts the retries of the answering target", async () => {
    waits.length = 0;
    const attempts: AttemptRecord[] = [];
    const calls = [answer(429), answer(429), answer(429), answer(200)];
    let sent = 0;
    const retrying = candidate(0, openai, ON_5XX, { retry: { attempts: 2, statuses: DEFAULT_RETRY_STATUSES } });
    const result = await tryTargets([retrying, candidate(1, groq)], async () => ok(calls[sent++]!), options(attempts));
    // 429 is retried twice; it is not in the fallback's statuses, so the third 429 is the answer.
    expect(result.ok && result.value.call.response.status).toBe(429);
    expect(result.ok && result.value.retries).toBe(2);
    expect(attempts.map((attempt) => attempt.retry)).toEqual([0, 1, 2]);
    // Full jitter with random() = 1: 250 ms, then 500 ms.
    expect(waits).toEqual([250, 500]);
    expect(calls[0]!.aborted && calls[1]!.aborted).toBe(true);
  });

  it("honours Retry-After up to the cap, and stops retrying past it", async () => {
    waits.length = 0;
    const retrying = candidate(0, openai, ANSWER_AS_IS, { retry: { attempts: 3, statuses: DEFAULT_RETRY_STATUSES } });
    const calls = [answer(503, { "retry-after": "2" }), answer(503, { "retry-after": String(MAX_RETRY_AFTER_MS / 1000 + 1) })];
    let sent = 0;
    const result = await tryTargets([retrying], async () => ok(calls[sent++]!), options([]));
    expect(result.ok && result.value.retries).toBe(1);
    expect(waits).toEqual([2000]);
    expect(retryDelayMs(new Headers({ "retry-after-ms": "150" }), 0, () => 0)).toBe(150);
    expect(retryDelayMs(new Headers({ "retry-after": new Date(Date.UTC(2030, 0, 1, 0, 0, 5)).toUTCString() }), 0, () => 0, Date.UTC(2030, 0, 1))).toBe(5000);
  });

  it("tries a body that cannot be sent again once, whatever the retries and fallbacks", async () => {
    const attempts: AttemptRecord[] = [];
    const retrying = candidate(0, openai, ON_5XX, { retry: { attempts: 3, statuses: DEFAULT_RETRY_STATUSES } });
    const result = await tryTargets([retrying, candidate(1)], async () => ok(answer(503)), options(attempts, { replayable: false }));
    expect(result.ok && result.value.call.response.status).toBe(503);
    expect(attempts).toHaveLength(1);
  });

  it("skips a target whose circuit is open and records it, then lets it be tried after the cool-down", async () => {
    let now = 1_000_000;
    const breakers = new LocalCircuitBreakers(() => now);
    const policy: BreakerPolicy = { failureThreshold: 2, windowMs: 10_000, cooldownMs: 5_000, statuses: new Set([500]) };
    const flaky = candidate(0, openai, ON_5XX, { breaker: policy });
    const list = [flaky, candidate(1, groq)];
    const send = async ({ index }: Candidate) => ok(answer(index === 0 ? 500 : 200));
    for (let i = 0; i < 2; i += 1) await tryTargets(list, send, options([], { breakers }));
    const attempts: AttemptRecord[] = [];
    const skipped = await tryTargets(list, send, options(attempts, { breakers }));
    expect(skipped.ok && skipped.value.candidate.index).toBe(1);
    expect(attempts[0]).toMatchObject({ target: 0, status: null, errorCode: "service_unavailable" });
    const alone = await tryTargets([flaky], send, options([], { breakers }));
    expect(!alone.ok && alone.error.code).toBe("service_unavailable");

    now += 5_001;
    const probe: AttemptRecord[] = [];
    await tryTargets(list, send, options(probe, { breakers }));
    expect(probe[0]).toMatchObject({ target: 0, status: 500 });
    // Half-open: one more failure opens it again at once.
    const again: AttemptRecord[] = [];
    await tryTargets(list, send, options(again, { breakers }));
    expect(again[0]).toMatchObject({ target: 0, errorCode: "service_unavailable" });
  });
});
