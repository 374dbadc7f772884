import { describe, expect, it } from "vitest";
import { LabelCap } from "./label-cap.ts";

describe("LabelCap", () => {
  it("keeps the first values, folds new ones past the cap into other, and names a missing one none", () => {
    const cap = new LabelCap(2, 8);
    expect(cap.value("gpt-4o")).toBe("gpt-4o");
    expect(cap.value("llama-3")).toBe("llama-3");
    expect(cap.value("mistral")).toBe("other");
    // Values seen before the cap filled keep their series.
    expect(cap.value("gpt-4o")).toBe("gpt-4o");
    expect(cap.value(null)).toBe("none");
    expect(cap.value("")).toBe("none");
    expect(new LabelCap(5, 8).value("a-very-long-model-name")).toBe("a-very-l");
  });
});
