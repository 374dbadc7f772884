/**
 * An inline `mcp` tool's `authorization` and `headers` values are the client's secrets for its
 * server: they go to that server and nowhere else. The log, exports, the response's echoed
 * `tools`, kept responses and their reads show them as stored secrets are shown, `********`.
 * Pure.
 */
import { MASKED_SECRET } from "../crypto/sealed-secret.ts";

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Whether an `mcp` tool of the list carries a secret of its own (an `authorization` or a header value). */
export function hasInlineMcpSecrets(tools: unknown): boolean {
  return Array.isArray(tools) && tools.some((tool) => isObject(tool) && tool.type === "mcp" && (typeof tool.authorization === "string" || (isObject(tool.headers) && Object.keys(tool.headers).length > 0)));
}

/** The tools with every `mcp` tool's `authorization` and header values masked; the list itself when none has any. */
export function maskedMcpTools<T>(tools: T): T {
  if (!Array.isArray(tools) || !hasInlineMcpSecrets(tools)) return tools;
  return tools.map((tool: unknown) => {
    if (!isObject(tool) || tool.type !== "mcp") return tool;
    const masked: Record<string, unknown> = { ...tool };
    if (typeof tool.authorization === "string") masked.authorization = MASKED_SECRET;
    if (isObject(tool.headers)) masked.headers = Object.fromEntries(Object.keys(tool.headers).map((name) => [name, MASKED_SECRET]));
    return masked;
  }) as T;
}

/** A request body (as JSON) with its `mcp` tools masked; the body itself when none has a secret. */
export function maskedMcpBody<T extends Record<string, unknown>>(body: T): T {
  return hasInlineMcpSecrets(body.tools) ? { ...body, tools: maskedMcpTools(body.tools) } : body;
}
