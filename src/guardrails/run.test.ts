import { describe, expect, it } from "vitest";
import type { GuardrailCheckSpec } from "../records/control-plane.ts";
import { runGuardrail } from "./run.ts";
import { checkContext } from "./testing.ts";

const guardrail = (checks: GuardrailCheckSpec[], deny = true) => ({ slug: "pg-test-abc123", checks, action: { deny } });

describe("runGuardrail", () => {
  it("passes when every check passes, with a result per check", async () => {
    const result = await runGuardrail(
      guardrail([
        { type: "contains", params: { words: ["hello"], operator: "any" } },
        { type: "word_count", params: { max: 10 } },
      ]),
      checkContext({ text: "hello world", stage: "input" }),
    );
    expect(result).toMatchObject({ guardrail: "pg-test-abc123", stage: "input", verdict: true, deny: true });
    expect(result.checks).toHaveLength(2);
    expect(result.checks[0]).toMatchObject({ check: "contains", verdict: true, data: { found: ["hello"] } });
    expect(result.checks[1]).toMatchObject({ check: "word_count", verdict: true, data: { count: 2 } });
    for (const check of result.checks) expect(check.latency_ms).toBeGreaterThanOrEqual(0);
  });

  it("fails when one check fails and reports the action", async () => {
    const result = await runGuardrail(
      guardrail([{ type: "word_count", params: { max: 1 } }, { type: "pii", params: {} }], false),
      checkContext({ text: "two words", stage: "output" }),
    );
    expect(result).toMatchObject({ stage: "output", verdict: false, deny: false });
    expect(result.checks.map((check) => check.verdict)).toEqual([false, true]);
  });

  it("passes a guardrail without checks", async () => {
    expect(await runGuardrail(guardrail([]), checkContext())).toMatchObject({ verdict: true, checks: [] });
  });

  it("fails checks with an unknown type or invalid stored params instead of throwing", async () => {
    const result = await runGuardrail(
      guardrail([{ type: "toxicity", params: {} }, { type: "regex_match", params: { pattern: "(" } }]),
      checkContext({ text: "x" }),
    );
    expect(result.verdict).toBe(false);
    expect(result.checks[0]).toMatchObject({ check: "toxicity", verdict: false, explanation: 'Unknown check type "toxicity".' });
    expect(result.checks[1]).toMatchObject({ check: "regex_match", verdict: false, explanation: expect.stringContaining("params.pattern") });
  });

  it("fails a check that throws, without echoing the error", async () => {
    const result = await runGuardrail(
      guardrail([{ type: "webhook", params: { url: "https://hooks.example.com/x" } }]),
      checkContext({
        checkUrl: async () => {
          throw new Error("resolver exploded with secret detail");
        },
      }),
    );
    expect(result.checks[0]).toMatchObject({ verdict: false, explanation: "The check failed with an internal error." });
    expect(JSON.stringify(result)).not.toContain("secret detail");
  });

  it("fails a check that outlives its time limit", async () => {
    const started = performance.now();
    const result = await runGuardrail(
      guardrail([{ type: "webhook", params: { url: "https://hooks.example.com/x", timeout_ms: 50 } }]),
      checkContext({ fetch: () => new Promise<Response>(() => undefined) }),
    );
    expect(result.checks[0]).toMatchObject({ verdict: false, explanation: "The check did not finish within 1050 ms." });
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it("runs checks concurrently and never reports webhook headers", async () => {
    const slowPass = () =>
      new Promise<Response>((resolve) => setTimeout(() => resolve(Response.json({ verdict: true })), 300));
    const spec = { type: "webhook", params: { url: "https://hooks.example.com/x", headers: { authorization: "Bearer hush" } } };
    const started = performance.now();
    const result = await runGuardrail(guardrail([spec, spec, spec]), checkContext({ fetch: slowPass }));
    expect(result.verdict).toBe(true);
    expect(performance.now() - started).toBeLessThan(800);
    expect(JSON.stringify(result)).not.toContain("hush");
  });
});
