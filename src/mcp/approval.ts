import type { McpApprovalPolicy } from "../records/control-plane.ts";

/**
 * Whether a call of `tool` waits for the client's approval. Each policy is OpenAI's
 * `require_approval`: `always`, `never`, or tool names under `always` and `never`. A tool in
 * neither list needs approval when the policy lists the tools that run freely (`never`), and
 * runs freely when it lists only those that need approval (`always`). A call needs approval when any of the policies asks for it
 * (a stored server's own and the request's), so a request can add approvals but never waive
 * one the operator set.
 */
export function needsApproval(policies: readonly McpApprovalPolicy[], tool: string): boolean {
  return policies.some((policy) => policyAsks(policy, tool));
}

function policyAsks(policy: McpApprovalPolicy, tool: string): boolean {
  if (policy === "always") return true;
  if (policy === "never") return false;
  if (policy.always?.tool_names?.includes(tool)) return true;
  if (policy.never?.tool_names?.includes(tool)) return false;
  return policy.never !== undefined;
}

/** A request's `require_approval` as a policy; undefined when absent, null when it is not one. */
export function approvalPolicyOf(value: unknown): McpApprovalPolicy | undefined | null {
  if (value === undefined || value === null) return undefined;
  if (value === "always" || value === "never") return value;
  if (typeof value !== "object" || Array.isArray(value)) return null;
  const policy: { always?: { tool_names?: string[] }; never?: { tool_names?: string[] } } = {};
  for (const key of ["always", "never"] as const) {
    const entry = (value as Record<string, unknown>)[key];
    if (entry === undefined || entry === null) continue;
    const names = typeof entry === "object" && !Array.isArray(entry) ? (entry as Record<string, unknown>).tool_names : undefined;
    if (names !== undefined && !(Array.isArray(names) && names.every((name) => typeof name === "string"))) return null;
    policy[key] = names === undefined ? {} : { tool_names: names as string[] };
  }
  return policy;
}
