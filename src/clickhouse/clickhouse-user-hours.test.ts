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

  it("stops at eight runs, however few records they hold", () => {
    const hours = Array.from({ length: 20 }, (_, i) => ({ hour: 1_000 - 2 * i, requests: 1 }));
    const { runs, taken } = nextHourRuns(hours, 51);
    expect(runs).toHaveLength(8);
    expect(taken).toBe(8);
    expect(runs[7]).toEqual({ first: 986, last: 986 });
  });
});
