/**
 * Finds the JSON value a text carries, for the JSON checks: the whole text when it parses,
 * else the first ```json (or bare ```) fence that parses, else the first balanced `{…}` or `[…]`
 * that parses. Only the first `MAX_CHECKED_CHARS` characters are looked at. Never throws.
 */
import { clip } from "./limits.ts";

export type JsonFound = { found: true; value: unknown; source: "text" | "fence" | "embedded" } | { found: false };

/** How many `{`/`[` starts are tried before giving up, so a text full of braces stays cheap. */
const MAX_STARTS = 20;
const FENCE = /```[ \t]*(?:json[c5]?[ \t]*)?\r?\n([\s\S]*?)```/gi;

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** The end index (exclusive) of the balanced value starting at `start`, string-aware; -1 if unbalanced. */
export function balancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === "\\") i++;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === "{") stack.push("}");
    else if (char === "[") stack.push("]");
    else if (char === "}" || char === "]") {
      if (stack.pop() !== char) return -1;
      if (stack.length === 0) return i + 1;
    }
  }
  return -1;
}

export function findJson(rawText: string): JsonFound {
  const text = clip(rawText);
  const whole = tryParse(text.trim());
  if (whole.ok) return { found: true, value: whole.value, source: "text" };

  for (const match of text.matchAll(FENCE)) {
    const parsed = tryParse((match[1] ?? "").trim());
    if (parsed.ok) return { found: true, value: parsed.value, source: "fence" };
  }

  let starts = 0;
  for (let i = 0; i < text.length && starts < MAX_STARTS; i++) {
    const char = text[i];
    if (char !== "{" && char !== "[") continue;
    starts++;
    const end = balancedEnd(text, i);
    if (end === -1) continue;
    const parsed = tryParse(text.slice(i, end));
    if (parsed.ok) return { found: true, value: parsed.value, source: "embedded" };
  }
  return { found: false };
}
