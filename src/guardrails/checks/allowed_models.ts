/**
 * `allowed_models` — the request's model must be one of `models` (1–100 names, matched exactly;
 * a trailing `*` matches any model starting with what precedes it, e.g. `gpt-4o*`; `*` alone
 * matches every model). `not: true` turns the list into a deny list. A request without a model
 * fails either way: it cannot be verified.
 */
import { z } from "zod";
import { nameList } from "../operator.ts";
import { defineCheck } from "../types.ts";

/** Whether `model` matches a name or a trailing-`*` prefix pattern. */
export function modelMatches(pattern: string, model: string): boolean {
  return pattern.endsWith("*") ? model.startsWith(pattern.slice(0, -1)) : model === pattern;
}

export const allowedModels = defineCheck({
  type: "allowed_models",
  params: z.strictObject({
    models: nameList("model").refine(
      (models) => models.every((model) => !model.slice(0, -1).includes("*")),
      "`*` is only allowed at the end of a model name",
    ),
    not: z.boolean().optional(),
  }),
  run: ({ models, not }, ctx) => {
    if (ctx.model === null) return { verdict: false, explanation: "The request names no model to check." };
    const listed = models.some((pattern) => modelMatches(pattern, ctx.model ?? ""));
    const verdict = not ? !listed : listed;
    const list = not ? "deny list" : "allowed models";
    return { verdict, explanation: `The model "${ctx.model}" is ${listed ? "" : "not "}in the ${list}.` };
  },
});
