import { describe, expect, it } from "vitest";
import { nextHourRuns } from "./clickhouse-user-hours.ts";

describe("the hours a listing by user reads next", () => {
  it("takes the newest hours whose counts hold the page, consecutive hours as one run", () => {
    const hours = [{ hour: 100, requests: 3 }, { hour: 99, requests: 4 }, { hour: 97, requests: 10 }, { hour: 50, requests: 1 }];
    expect(nextHourRuns(hours, 7)).toEqual({ runs: [{ first: 99, last: 100 }], taken: 2 });
    expect(nextHourRuns(hours, 8)).toEqual({ runs: [{ first: 99, last: 100 }, { first: 97, last: 97 }], taken: 3 });
    expect(nextHourRuns(hours, 1_000)).toEqual({ runs: [{ first: 99, last: 100 }, { first: 97, last: 97 }, { first: 50, last: 50 }], taken: 4 });
    expect(nextHourRuns([], 10)).toEqual({ runs: [], taken: 0 });
  });

  it("joins the runs nearest each other, gap and all, to read at most eight at once", () => {
    // Twenty single hours, newest first; the gaps between them widen with age, but for one narrow gap near the end.
    const ages = [0, 2, 5, 9, 14, 20, 27, 35, 44, 54, 65, 77, 90, 104, 119, 135, 152, 170, 171, 190];
    const hours = ages.map((age) => ({ hour: 1_000 - age, requests: 1 }));
    const { runs, taken } = nextHourRuns(hours, 100);
    expect(taken).toBe(20);
    expect(runs).toHaveLength(8);
    // Every hour taken lies in a run, newest first, and no run overlaps the next.
    for (const { hour } of hours) expect(runs.some((run) => run.first <= hour && hour <= run.last)).toBe(true);
    runs.slice(1).forEach((run, i) => expect(run.last).toBeLessThan(runs[i]!.first));
    // The twelve narrowest gaps were closed: the newest hours (ages 0 to 77) form one run, and the
    // one-hour gap between ages 170 and 171; the wider gaps between the older hours stay open.
    expect(runs[0]).toEqual({ first: 1_000 - 77, last: 1_000 });
    expect(runs.slice(1).map((run) => [1_000 - run.last, 1_000 - run.first])).toEqual([[90, 90], [104, 104], [119, 119], [135, 135], [152, 152], [170, 171], [190, 190]]);
  });
});
