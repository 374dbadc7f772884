import { resumeRunRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { runSubject } from "../audit/audit-subjects.ts";
import { GatewayError } from "../errors.ts";
import type { RunView } from "../runs/run-breaker.ts";

export function registerResumeRun(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(resumeRunRoute, async (c) => {
    const auth = c.get("auth");
    const { trace_id: traceId } = c.req.valid("param");
    const run = { workspaceId: auth.workspaceId, traceId };
    const notFound = () => new GatewayError("not_found", `No run ${traceId.slice(0, 128)} is counted in this workspace.`, { param: "trace_id" });
    const current = await deps.runs.state(run);
    if (!current) throw notFound();
    // A run that is not halted is left as it is (and nothing is recorded).
    if (!current.halted) return c.json(current, 200);
    const changed = await auditedChange(c, deps.store, "run.resumed", runSubject(auth.workspaceId), async () => {
      const before = await deps.runs.resume(run);
      if (!before) return undefined;
      const after: RunView = { ...before, requests: 0, tool_calls: 0, cost_usd: 0, started_at: null, halted: null };
      return { before, after };
    });
    if (!changed?.after) throw notFound();
    return c.json(changed.after, 200);
  });
}
