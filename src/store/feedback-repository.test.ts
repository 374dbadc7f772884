import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../test/support/databases.ts";
import type { FeedbackRecord } from "./feedback-repository.ts";
import { scopeId, useStore, uuidv7At } from "./store-test-fixtures.ts";

const JAN_1 = Date.parse("2026-01-01T00:00:00.000Z");

function feedback(ms: number, overrides: Partial<FeedbackRecord> = {}): FeedbackRecord {
  return {
    id: uuidv7At(ms),
    organisationId: "org-default",
    workspaceId: "ws-default",
    ownerId: "key-1",
    updatedBy: "key-1",
    traceId: "trace-1",
    value: 7,
    weight: 0.25,
    metadata: { source: "thumbs", "ünïcode key": "välue" },
    createdAt: new Date(ms).toISOString(),
    ...overrides,
  };
}

describe.each(TEST_DATABASES)("feedback repository on $name", ({ create }) => {
  const store = useStore(create);

  it("stores feedback and reads every field back, oldest first", async () => {
    const workspaceId = scopeId("ws");
    const traceId = `trace-${crypto.randomUUID()}`;
    const newer = feedback(JAN_1 + 1000, { workspaceId, traceId, value: -10, weight: 0, metadata: {}, ownerId: null, updatedBy: null });
    const older = feedback(JAN_1, { workspaceId, traceId });
    expect(await store().feedback.create(newer)).toEqual(newer);
    await store().feedback.create(older);
    expect(await store().feedback.listByTrace(workspaceId, traceId)).toEqual([older, newer]);
  });

  it("keeps each workspace's and each trace's feedback apart", async () => {
    const mine = scopeId("ws");
    const theirs = scopeId("ws");
    const traceId = `trace-${crypto.randomUUID()}`;
    const own = feedback(JAN_1, { workspaceId: mine, traceId });
    await store().feedback.create(own);
    await store().feedback.create(feedback(JAN_1 + 1, { workspaceId: theirs, traceId }));
    await store().feedback.create(feedback(JAN_1 + 2, { workspaceId: mine, traceId: `${traceId}-other` }));
    expect(await store().feedback.listByTrace(mine, traceId)).toEqual([own]);
    expect((await store().feedback.listByTrace(theirs, traceId)).map((f) => f.workspaceId)).toEqual([theirs]);
    expect(await store().feedback.listByTrace(scopeId("ws"), traceId)).toEqual([]);
  });
});
