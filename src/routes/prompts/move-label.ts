import type { Context } from "hono";
import type { GatewayEnv } from "../../app-env.ts";
import type { GatewayDeps } from "../../deps.ts";
import { auditedChange } from "../../audit/audited-change.ts";
import { promptSubject } from "../../audit/audit-subjects.ts";
import { promptView } from "../../control-plane/views.ts";
import { GatewayError } from "../../errors.ts";
import { isoNow } from "../../lib/ids.ts";
import type { AuditAction } from "../../records/audit-event.ts";
import type { Prompt } from "../../generated/schemas.gen.ts";
import type { ControlPlaneStore } from "../../store/open-store.ts";
import { validateTemplate } from "../../prompts/template.ts";

export interface LabelMove {
  promptId: string;
  label: string;
  version: number;
  action: AuditAction;
  /** How a version the prompt does not have is refused: 400 (a label move), or 404 (publish, as it always answered). */
  missingVersion?: "invalid_request" | "not_found";
}

/**
 * Puts a label on a version of a prompt, audited, and tells every replica (the control-plane
 * cache's `forget` travels through Redis). No prompt → 404 naming `id`; no such version → 400
 * (or `missingVersion`) naming `version`. A version stored before a template limit existed is never labelled: a label
 * is something a run may render.
 */
export async function moveLabel(c: Context<GatewayEnv>, deps: Pick<GatewayDeps, "store" | "controlPlane">, move: LabelMove): Promise<Prompt> {
  const auth = c.get("auth");
  const { promptId, label, version } = move;
  const changed = await auditedChange(c, deps.store, move.action, promptSubject, async (tx: ControlPlaneStore) => {
    const before = await tx.prompts.get(auth.workspaceId, promptId);
    if (!before) throw new GatewayError("not_found", `No prompt ${promptId} in this workspace.`, { param: "id" });
    const chosen = before.versions.find((candidate) => candidate.versionNumber === version);
    if (!chosen) throw new GatewayError(move.missingVersion ?? "invalid_request", `Prompt ${promptId} has no version ${version}.`, { param: "version" });
    const valid = validateTemplate(chosen.messages);
    if (!valid.ok) throw new GatewayError("invalid_request", `Version ${version} cannot be labelled: ${valid.error.message}`, { param: "version" });
    const after = await tx.prompts.moveLabel(auth.workspaceId, promptId, label, version, auth.keyId, isoNow());
    if (!after) throw new GatewayError("invalid_request", `Prompt ${promptId} has no version ${version}.`, { param: "version" });
    return { before, after };
  });
  deps.controlPlane.forget("prompt", auth.workspaceId, promptId);
  return promptView(changed!.after!);
}
