import { describe, expect, it, vi } from "vitest";
import { chunkCollector } from "./chunk-collector.ts";

describe("chunkCollector", () => {
  it("collects once per the given number of bytes passed, whatever the chunks' sizes", () => {
    const collect = vi.fn();
    const passed = chunkCollector(1000, collect);
    for (let i = 0; i < 9; i += 1) passed(100);
    expect(collect).not.toHaveBeenCalled();
    passed(100);
    expect(collect).toHaveBeenCalledTimes(1);
    passed(2500);
    expect(collect).toHaveBeenCalledTimes(2);
    passed(999);
    expect(collect).toHaveBeenCalledTimes(2);
    passed(1);
    expect(collect).toHaveBeenCalledTimes(3);
  });

  it("does nothing where the runtime has no collection to call", () => {
    const passed = chunkCollector(10, undefined);
    expect(() => passed(1_000_000)).not.toThrow();
  });
});
