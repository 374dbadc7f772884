import type { PromptDiff } from "../generated/schemas.gen.ts";
import type { PromptVersionRecord } from "../records/control-plane.ts";
import { diffLines } from "./line-diff.ts";

type FieldChange = PromptDiff["fields"][number];
type MessageDiff = PromptDiff["messages"][number];

/** What changed from one version of a prompt to another: its target fields, each hyperparameter, each message line by line. */
export function promptDiff(promptId: string, from: PromptVersionRecord, to: PromptVersionRecord): PromptDiff {
  const fields: FieldChange[] = [];
  const compare = (field: string, before: unknown, after: unknown) => {
    if (JSON.stringify(before) !== JSON.stringify(after)) fields.push({ field, from: before ?? null, to: after ?? null });
  };
  compare("model", from.model, to.model);
  compare("provider", from.provider, to.provider);
  compare("virtual_key", from.virtualKey, to.virtualKey);
  const names = [...new Set([...Object.keys(from.hyperparameters), ...Object.keys(to.hyperparameters)])].sort();
  for (const name of names) compare(`hyperparameters.${name}`, from.hyperparameters[name], to.hyperparameters[name]);

  const messages: MessageDiff[] = [];
  for (let index = 0; index < Math.max(from.messages.length, to.messages.length); index += 1) {
    const before = from.messages[index];
    const after = to.messages[index];
    const lines = diffLines(before?.content ?? "", after?.content ?? "");
    const status = !before ? "added" : !after ? "removed" : before.role === after.role && before.content === after.content ? "same" : "changed";
    messages.push({ index, status, role: { from: before?.role ?? null, to: after?.role ?? null }, lines });
  }
  return { object: "prompt.diff", prompt_id: promptId, from: from.versionNumber, to: to.versionNumber, fields, messages };
}
