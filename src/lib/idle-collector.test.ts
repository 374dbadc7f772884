import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startIdleCollector } from "./idle-collector.ts";

describe("startIdleCollector", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("collects once per quiet period that follows work, never while work goes on", () => {
    let work = 0;
    const collect = vi.fn();
    const stop = startIdleCollector({ workDone: () => work, collect, quietMs: 1_000 });

    vi.advanceTimersByTime(1_000);
    expect(collect).toHaveBeenCalledTimes(1); // start-up's own garbage

    for (let second = 0; second < 5; second += 1) {
      work += 10;
      vi.advanceTimersByTime(1_000);
    }
    expect(collect).toHaveBeenCalledTimes(1); // busy the whole time

    vi.advanceTimersByTime(1_000);
    expect(collect).toHaveBeenCalledTimes(2); // the burst's garbage, once
    vi.advanceTimersByTime(10_000);
    expect(collect).toHaveBeenCalledTimes(2); // idle with nothing new: nothing to give back

    work += 1;
    vi.advanceTimersByTime(2_000);
    expect(collect).toHaveBeenCalledTimes(3);

    stop();
    work += 1;
    vi.advanceTimersByTime(5_000);
    expect(collect).toHaveBeenCalledTimes(3);
  });
});
