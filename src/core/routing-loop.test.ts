import { describe, expect, it } from "vitest";
import { GatewayError, fail, ok } from "../errors.ts";
import type { AttemptRecord } from "../logging/log-record.ts";
import { findProvider } from "../providers/catalogue.ts";
import { ANSWER_AS_IS, tryTargets, type Candidate, type FallbackPolicy } from "./routing-loop.ts";
import type { UpstreamCall } from "./upstream-call.ts";

const openai = findProvider("openai")!;
const groq = findProvider("groq")!;

function candidate(index: number, provider = openai, fallback: FallbackPolicy = ANSWER_AS_IS): Candidate {
  return {
    index,
    fallback,
    target: { provider, baseUrl: provider.baseUrl!, credentials: { style: "bearer", apiKey: null, organization: null, project: null }, model: `model-${index}`, virtualKeyId: null },
  };
}

function answer(status: number): UpstreamCall & { aborted: boolean } {
  const call = {
    aborted: false,
    response: new Response("{}", { status }),
    abort() {
      call.aborted = true;
    },
    done() {},
    classify: () => new GatewayError("upstream_unreachable", "unreachable"),
  };
  return call;
}

const ON_5XX: FallbackPolicy = { statuses: new Set([500, 503]), unreachable: true };

describe("tryTargets", () => {
  it("answers with a single target whatever it answers, and records the try", async () => {
    const attempts: AttemptRecord[] = [];
    const before = Date.now();
    const result = await tryTargets([candidate(0)], async () => ok(answer(503)), attempts);
    expect(result.ok && result.value.call.response.status).toBe(503);
    expect(attempts).toEqual([expect.objectContaining({ target: 0, provider: "openai", model: "model-0", status: 503, errorCode: null })]);
    expect(attempts[0]!.latencyMs).toBeGreaterThanOrEqual(0);
    // The wall-clock start the trace spans are placed by.
    expect(attempts[0]!.startedAt).toBeGreaterThanOrEqual(before);
    expect(attempts[0]!.startedAt).toBeLessThanOrEqual(Date.now());
  });

  it("moves past a status its policy names, cancelling that answer, and records every try in order", async () => {
    const attempts: AttemptRecord[] = [];
    const calls = [answer(503), answer(200)];
    const result = await tryTargets([candidate(0, openai, ON_5XX), candidate(1, groq)], async ({ index }) => ok(calls[index]!), attempts);
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
    const moved = await tryTargets([candidate(0, openai, ON_5XX), candidate(1)], unreachable, attempts);
    expect(moved.ok).toBe(true);
    expect(attempts[0]).toMatchObject({ status: null, errorCode: "upstream_unreachable", errorMessage: "Could not reach OpenAI: ECONNREFUSED." });

    const stayed = await tryTargets([candidate(0), candidate(1)], unreachable, []);
    expect(stayed.ok).toBe(false);
    expect(!stayed.ok && stayed.error.code).toBe("upstream_unreachable");
  });

  it("never moves past a client that left, nor past the last candidate", async () => {
    const attempts: AttemptRecord[] = [];
    const gone = await tryTargets([candidate(0, openai, ON_5XX), candidate(1)], async () => fail(new GatewayError("client_closed", "gone")), attempts);
    expect(!gone.ok && gone.error.code).toBe("client_closed");
    expect(attempts).toHaveLength(1);

    const last = await tryTargets([candidate(0, openai, ON_5XX), candidate(1, groq, ON_5XX)], async () => ok(answer(500)), []);
    expect(last.ok && last.value.candidate.index).toBe(1);
  });
});
