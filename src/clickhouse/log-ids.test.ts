import { describe, expect, it } from "vitest";
import { uuidv7At } from "../store/store-test-fixtures.ts";
import { ID_MARGIN_MS, idsInRuns } from "./log-ids.ts";

const DAY = 86_400_000;
const T = Date.UTC(2026, 5, 1);

/** The runs of a condition: each arm's id bounds. */
const arms = (condition: string) => [...condition.matchAll(/\(id >= '([^']+)' AND id <= '([^']+)'/g)].map((match) => [match[1], match[2]]);

describe("idsInRuns", () => {
  it("reads ids close in time as one run, bounded by their times with the margin", () => {
    const ids = [T + 50 * 60_000, T + 20 * 60_000, T].map((ms, i) => uuidv7At(ms, i));
    const condition = idsInRuns(ids);
    expect(arms(condition)).toEqual([[ids[2], ids[0]]]);
    expect(condition).toContain(`created_ms >= ${T - ID_MARGIN_MS} AND created_ms <= ${T + 50 * 60_000 + ID_MARGIN_MS}`);
    expect(condition).toContain(`id IN ('${ids.join("', '")}')`);
  });

  it("reads ids days apart as runs of their own, so the days between are not read", () => {
    const ids = [T + 5 * DAY, T + 5 * DAY - 10 * 60_000, T + 2 * DAY, T].map((ms, i) => uuidv7At(ms, i));
    expect(arms(idsInRuns(ids))).toEqual([[ids[1], ids[0]], [ids[2], ids[2]], [ids[3], ids[3]]]);
  });

  it("reads at most eight runs, the nearest joined", () => {
    // Ten ids a day apart, but the fifth and sixth 2.4 hours apart: those two are joined, then the
    // fourth, 0.9 days from them, the nearest left.
    const times = [9, 8, 7, 6, 5.1, 5, 4, 3, 2, 1].map((days) => T + days * DAY);
    const ids = times.map((ms, i) => uuidv7At(ms, i));
    const runs = arms(idsInRuns(ids));
    expect(runs).toHaveLength(8);
    expect(runs).toContainEqual([ids[5], ids[3]]);
    expect(runs.flat().sort()).toEqual(expect.arrayContaining([ids[0], ids[9]]));
  });

  it("makes one run of all when an id is not UUIDv7", () => {
    const ids = [uuidv7At(T + DAY), "legacy-id", uuidv7At(T)];
    const condition = idsInRuns(ids);
    expect(arms(condition)).toEqual([[ids[2], ids[0]]]);
    expect(condition).toContain("id IN ('");
  });
});
