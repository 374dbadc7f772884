import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../test/support/databases.ts";
import type { ExperimentRecord } from "../records/experiment.ts";
import { bucketOf } from "../analytics/latency-histogram.ts";
import type { NewExperiment } from "./experiments-repository.ts";
import { logRecord, scopeId, useStore } from "./store-test-fixtures.ts";

function newExperiment(overrides: Partial<NewExperiment> = {}): NewExperiment {
  return {
    id: crypto.randomUUID(),
    organisationId: "org-1",
    workspaceId: scopeId("ws"),
    ownerId: "key-a",
    updatedBy: "key-a",
    name: "new model",
    description: null,
    status: "draft",
    assignment: "user",
    promptId: null,
    variants: [
      { name: "control", weight: 1 },
      { name: "treatment", weight: 1, model: "gpt-4o", params: { temperature: 0.2 } },
    ],
    guards: [{ metric: "error_rate", tolerance: 0.05 }],
    alpha: 0.05,
    startedAt: null,
    stoppedAt: null,
    concludedAt: null,
    stopReason: null,
    promotedVariant: null,
    createdAt: "2026-03-01T00:00:00.000Z",
    ...overrides,
  };
}

describe.each(TEST_DATABASES)("experiments on $name", ({ create }) => {
  const store = useStore(create);

  it("stores an experiment and reads it back intact, per workspace", async () => {
    const input = newExperiment();
    const created = await store().experiments.create(input);
    expect(created).toEqual({ ...input, updatedAt: input.createdAt } satisfies ExperimentRecord);
    expect(await store().experiments.get(input.workspaceId, input.id)).toEqual(created);
    expect(await store().experiments.get(scopeId("ws"), input.id)).toBeUndefined();
    expect(await store().experiments.list(input.workspaceId)).toEqual([created]);
    expect(await store().experiments.list(input.workspaceId, "running")).toEqual([]);
  });

  it("changes status only from the statuses it is told, once", async () => {
    const input = newExperiment();
    await store().experiments.create(input);
    const at = "2026-03-02T00:00:00.000Z";
    const started = await store().experiments.update(input.workspaceId, input.id, { status: "running", startedAt: at, updatedBy: "key-b", at }, ["draft"]);
    expect(started).toMatchObject({ status: "running", startedAt: at, updatedBy: "key-b", updatedAt: at });
    expect((await store().experiments.running()).map((experiment) => experiment.id)).toContain(input.id);
    const stopReason = { kind: "guard" as const, at, metric: "error_rate", variant: "treatment", detail: "crossed", difference: 0.5, low: 0.3, high: 0.7, tolerance: 0.05 };
    const stops = await Promise.all([1, 2].map(() => store().experiments.update(input.workspaceId, input.id, { status: "stopped", stoppedAt: at, stopReason, updatedBy: null, at }, ["running"])));
    expect(stops.filter(Boolean)).toHaveLength(1);
    expect(await store().experiments.get(input.workspaceId, input.id)).toMatchObject({ status: "stopped", stopReason });
    expect(await store().experiments.update(scopeId("ws"), input.id, { name: "x", updatedBy: null, at }, undefined)).toBeUndefined();
    expect(await store().experiments.delete(scopeId("ws"), input.id)).toBe(false);
    expect(await store().experiments.delete(input.workspaceId, input.id)).toBe(true);
  });

  it("sums each variant's logs and the feedback on their traces, and the logs filter on them", async () => {
    const workspaceId = scopeId("ws");
    const experimentId = crypto.randomUUID();
    const start = Date.UTC(2026, 2, 3, 10);
    const records = [
      logRecord(start + 1, { workspaceId, experimentId, experimentVariant: "control", latencyMs: 100, costUsd: 0.001, totalTokens: 10, success: true }, 1),
      logRecord(start + 2, { workspaceId, experimentId, experimentVariant: "control", latencyMs: 200, costUsd: 0.003, totalTokens: 30, success: false }, 2),
      logRecord(start + 3, { workspaceId, experimentId, experimentVariant: "treatment", latencyMs: 400, costUsd: null, totalTokens: 70_000, success: true }, 3),
      // Another experiment's and another workspace's logs count for nothing here.
      logRecord(start + 4, { workspaceId, experimentId: crypto.randomUUID(), experimentVariant: "control" }, 4),
      logRecord(start + 5, { workspaceId: scopeId("ws"), experimentId, experimentVariant: "control" }, 5),
      logRecord(start + 6, { workspaceId }, 6),
    ];
    await store().logs.insertBatch(records);
    for (const [index, value] of [[0, 1], [0, 3], [2, -2]] as const) {
      await store().feedback.create({
        id: crypto.randomUUID(),
        organisationId: "org-1",
        workspaceId,
        ownerId: null,
        updatedBy: null,
        traceId: records[index]!.traceId,
        value,
        weight: 1,
        metadata: {},
        createdAt: new Date(start).toISOString(),
      });
    }
    const totals = await store().experimentOutcomes.variantTotals(workspaceId, experimentId, new Date(start).toISOString());
    const control = totals.find((variant) => variant.variant === "control")!;
    const treatment = totals.find((variant) => variant.variant === "treatment")!;
    expect(totals).toHaveLength(2);
    expect(control).toMatchObject({ requests: 2, errors: 1, promptTokens: 22, completionTokens: 44 });
    expect(control.cost).toEqual({ n: 2, sum: expect.closeTo(0.004, 12), squares: expect.closeTo(0.00001, 12) });
    expect(control.tokens).toEqual({ n: 2, sum: 40, squares: 1000 });
    expect(control.latency.counts[bucketOf(100)]).toBe(1);
    expect(control.latency.counts[bucketOf(200)]).toBe(1);
    expect([control.latency.min, control.latency.max]).toEqual([100, 200]);
    expect(control.feedback).toEqual({ n: 2, sum: 4, squares: 10 });
    // A square past PostgreSQL's integer range is summed as a double.
    expect(treatment).toMatchObject({ requests: 1, errors: 0, cost: { n: 0, sum: 0, squares: 0 }, tokens: { n: 1, sum: 70_000, squares: 4_900_000_000 } });
    expect(treatment.feedback).toEqual({ n: 1, sum: -2, squares: 4 });

    const listed = await store().logs.list({ workspaceId, experimentId, experimentVariant: "control", limit: 10 });
    expect(listed.records.map((record) => record.id).sort()).toEqual([records[0]!.id, records[1]!.id].sort());
    expect(listed.records[0]).toMatchObject({ experimentId, experimentVariant: "control" });
    expect((await store().logs.list({ workspaceId, experimentId, limit: 10 })).records).toHaveLength(3);
    const grouped = await store().analytics.aggregate({ workspaceId, experimentId, from: new Date(start - 3_600_000).toISOString(), to: new Date(start + 3_600_000).toISOString() }, { kind: "group", by: "experiment_variant" });
    expect([...grouped].map(([variant, aggregate]) => [variant, aggregate.requests]).sort()).toEqual([["control", 2], ["treatment", 1]]);
  });
});
