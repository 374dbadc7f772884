import { deletePromptLabelRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { auditedChange } from "../audit/audited-change.ts";
import { promptSubject } from "../audit/audit-subjects.ts";
import { promptView } from "../control-plane/views.ts";
import { GatewayError } from "../errors.ts";
import { isoNow } from "../lib/ids.ts";
import { PRODUCTION_LABEL } from "../records/control-plane.ts";

export function registerDeletePromptLabel(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(deletePromptLabelRoute, async (c) => {
    const auth = c.get("auth");
    const { id, label } = c.req.valid("param");
    // A prompt always runs some version when asked for none: the one labelled production.
    if (label === PRODUCTION_LABEL) throw new GatewayError("invalid_request", "The production label cannot be taken off: move it to another version instead.", { param: "label" });
    const changed = await auditedChange(c, deps.store, "prompt.label_removed", promptSubject, async (tx) => {
      const before = await tx.prompts.get(auth.workspaceId, id);
      if (!before) throw new GatewayError("not_found", `No prompt ${id} in this workspace.`, { param: "id" });
      const running = await tx.experiments.list(auth.workspaceId, "running");
      const user = running.find((experiment) => experiment.promptId === id && experiment.variants.some((variant) => variant.prompt_label === label));
      if (user) throw new GatewayError("invalid_request", `Running experiment ${user.id} runs the version "${label}" is on: stop it first.`, { param: "label" });
      const after = await tx.prompts.removeLabel(auth.workspaceId, id, label, auth.keyId, isoNow());
      if (!after) throw new GatewayError("not_found", `Prompt ${id} has no label "${label}".`, { param: "label" });
      return { before, after };
    });
    deps.controlPlane.forget("prompt", auth.workspaceId, id);
    return c.json(promptView(changed!.after!), 200);
  });
}
