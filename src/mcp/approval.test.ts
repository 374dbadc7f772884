import { describe, expect, it } from "vitest";
import { approvalPolicyOf, needsApproval } from "./approval.ts";

describe("which MCP calls wait for approval", () => {
  it("reads always, never, and tool lists; any policy asking is enough", () => {
    expect(needsApproval(["always"], "a")).toBe(true);
    expect(needsApproval(["never"], "a")).toBe(false);
    // Listing the tools that need approval: the others run freely.
    expect(needsApproval([{ always: { tool_names: ["rm"] } }], "rm")).toBe(true);
    expect(needsApproval([{ always: { tool_names: ["rm"] } }], "ls")).toBe(false);
    // Listing the tools that run freely: the others need approval.
    expect(needsApproval([{ never: { tool_names: ["ls"] } }], "ls")).toBe(false);
    expect(needsApproval([{ never: { tool_names: ["ls"] } }], "rm")).toBe(true);
    // A request cannot waive what the stored server asks.
    expect(needsApproval([{ always: { tool_names: ["rm"] } }, "never"], "rm")).toBe(true);
  });

  it("refuses a malformed require_approval and passes an absent one as undefined", () => {
    expect(approvalPolicyOf(undefined)).toBeUndefined();
    expect(approvalPolicyOf("sometimes")).toBeNull();
    expect(approvalPolicyOf({ never: { tool_names: [1] } })).toBeNull();
    expect(approvalPolicyOf({ never: { tool_names: ["a"] } })).toEqual({ never: { tool_names: ["a"] } });
  });
});
