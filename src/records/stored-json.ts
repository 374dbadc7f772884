import type { AttemptRecord, ToolStepRecord } from "./log-record.ts";

/** The stored JSON object, keeping only string values; anything unreadable becomes `{}`. Never throws. */
export function parseMetadata(text: string): Record<string, string> {
  const parsed = parseJson(text);
  if (!isObject(parsed)) return {};
  return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

/** The stored JSON array of attempts, keeping only well-formed ones; anything unreadable becomes `[]`. Never throws. */
export function parseAttempts(text: string): AttemptRecord[] {
  const parsed = parseJson(text);
  if (!Array.isArray(parsed)) return [];
  // Records written before retries and config paths were logged read as first tries of the root.
  return parsed.map((item: unknown) => (isObject(item) ? { path: "", retry: 0, ...item } : item)).filter(isAttempt);
}

const TOOL_STEP_TYPES: ReadonlySet<unknown> = new Set(["model", "mcp_list_tools", "mcp_call"]);

/** The stored JSON array of tool-run steps, keeping only well-formed ones; anything unreadable (or absent) becomes `[]`. Never throws. */
export function parseToolRun(text: string): ToolStepRecord[] {
  const parsed = parseJson(text);
  if (!Array.isArray(parsed)) return [];
  return parsed.filter(
    (item: unknown): item is ToolStepRecord =>
      isObject(item) && TOOL_STEP_TYPES.has(item.type) && typeof item.round === "number" && typeof item.started_at === "number" && typeof item.duration_ms === "number",
  );
}

function isAttempt(value: unknown): value is AttemptRecord {
  if (!isObject(value)) return false;
  const { target, path, retry, provider, model, status, startedAt, latencyMs, errorCode, errorMessage, note } = value;
  return (
    typeof target === "number" &&
    typeof path === "string" &&
    typeof retry === "number" &&
    (startedAt === undefined || typeof startedAt === "number") &&
    typeof provider === "string" &&
    (model === null || typeof model === "string") &&
    (status === null || typeof status === "number") &&
    typeof latencyMs === "number" &&
    (errorCode === null || typeof errorCode === "string") &&
    (errorMessage === null || typeof errorMessage === "string") &&
    (note === undefined || typeof note === "string")
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
