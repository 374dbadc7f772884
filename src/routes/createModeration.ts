import { createModerationRoute } from "../generated/routes.gen.ts";
import { jsonFieldOverrides } from "../operation/field-overrides.ts";
import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";
import type { JsonObject } from "../providers/provider.ts";

/** Moderations: free upstream, so the log prices nothing; input guardrails judge the `input` strings. */
export const moderationOperation = proxiedOperation(createModerationRoute, {
  overrides: jsonFieldOverrides,
  guardrails: { input: inputStrings },
});

export const registerCreateModeration = proxiedRoute(createModerationRoute, moderationOperation);

/** The `input` strings, joined by newlines; image parts carry no text to judge, text parts do. */
function inputStrings(body: JsonObject): string {
  const { input } = body;
  if (typeof input === "string") return input;
  if (!Array.isArray(input)) return "";
  return input
    .map((item) => (typeof item === "string" ? item : item && typeof item === "object" && typeof (item as JsonObject).text === "string" ? ((item as JsonObject).text as string) : null))
    .filter((text): text is string => text !== null)
    .join("\n");
}
