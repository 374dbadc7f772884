/**
 * `contains_code` — passes when the text CONTAINS code; set `not: true` to require that it
 * contains none (the usual "no code in answers" guardrail).
 * - `format: "fenced"`: only Markdown fenced blocks (``` or ~~~, optionally tagged with a
 *   language; an unclosed fence at the end counts) are code.
 * - `format: "any"` (default): fenced blocks, or at least two lines that are unmistakably code
 *   (imports, function/class definitions, `const x =`, `#include`, SQL statements, lines ending in
 *   `{` or `);`…). The heuristic is conservative: prose rarely trips it, terse code may escape it.
 * - `languages`: only fenced blocks tagged with one of these languages count (common aliases such
 *   as js/javascript, py/python, sh/bash are equal); untagged blocks and the line heuristic are ignored.
 * Only the first 100,000 characters are scanned.
 */
import { z } from "zod";
import { clip, plural } from "../limits.ts";
import { defineCheck } from "../types.ts";

const ALIASES: Record<string, string> = {
  js: "javascript", jsx: "javascript", node: "javascript", mjs: "javascript",
  ts: "typescript", tsx: "typescript",
  py: "python", python3: "python",
  sh: "bash", shell: "bash", zsh: "bash", console: "bash",
  rb: "ruby", rs: "rust", golang: "go", kt: "kotlin",
  "c++": "cpp", cc: "cpp", "c#": "csharp", cs: "csharp",
  yml: "yaml", ps1: "powershell", pwsh: "powershell",
};

/** A language tag in canonical form ("JS" → "javascript"). */
export function normalizeLanguage(tag: string): string {
  const lower = tag.trim().toLowerCase();
  return ALIASES[lower] ?? lower;
}

export interface FencedBlock {
  /** The normalized language tag, or null when untagged. */
  language: string | null;
}

const OPENING = /^ {0,3}(`{3,}|~{3,})[ \t]*([^\s`{]*)/;

/** The fenced code blocks of a Markdown text. */
export function findFencedBlocks(text: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let open: string | null = null;
  for (const line of text.split(/\r?\n/)) {
    if (open === null) {
      const match = OPENING.exec(line);
      if (!match) continue;
      open = match[1] ?? "```";
      const tag = match[2] ?? "";
      blocks.push({ language: tag ? normalizeLanguage(tag) : null });
    } else {
      const trimmed = line.trim();
      if (trimmed.length >= open.length && trimmed[0] === open[0] && /^(`+|~+)$/.test(trimmed)) open = null;
    }
  }
  return blocks;
}

const CODE_LINES: readonly RegExp[] = [
  /^import\s+(?:[\w*{][^;]*\s+from\s+)?["'][^"']+["'];?$/,
  /^import\s+[\w.]+(?:\s+as\s+\w+)?;?$/,
  /^from\s+[\w.]+\s+import\s+[\w*(]/,
  /^(?:export\s+)?(?:async\s+)?function\*?\s+\w+\s*\(.*\)\s*\{?$/,
  /^(?:async\s+)?def\s+\w+\s*\(.*\)\s*(?:->.*)?:$/,
  /^class\s+\w+(?:\s*\(.*\))?\s*:$/,
  /^(?:export\s+)?(?:abstract\s+)?class\s+\w+(?:\s+(?:extends|implements)\s+[\w.<>, ]+)*\s*\{$/,
  /^(?:export\s+)?(?:const|let|var)\s+[\w${}[\], ]+\s*(?::\s*[\w<>[\]|, ]+)?\s*=\s*.+;?$/,
  /^#include\s*[<"][\w./]+[>"]$/,
  /^(?:public|private|protected)\s+(?:static\s+)?(?:final\s+)?[\w<>[\]]+\s+\w+\s*\(.*\)\s*(?:throws\s+[\w., ]+)?\s*\{?$/,
  /^(?:SELECT\s.+\sFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+TABLE)\s/,
  /^(?:if|for|while|switch)\s*\(.*\)\s*\{$/,
  /^(?:fn|func)\s+\w+\s*\(.*\).*\{$/,
  /^[\w$.]+(?:\[[^\]]*\])*\s*\(.*\);$/,
  /^[\w$.]+\s*(?:[+\-*/]?=)\s*[^=].*;$/,
  /^\}\s*(?:else\b.*|catch\b.*|\);?)?$/,
  /^return\b.*;$/,
];

/** Longer lines are never taken for code: it also keeps the line patterns cheap. */
const MAX_CODE_LINE = 400;

/** How many lines of the text look unmistakably like code. */
export function countCodeLines(text: string): number {
  let count = 0;
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed && trimmed.length <= MAX_CODE_LINE && CODE_LINES.some((pattern) => pattern.test(trimmed))) count++;
  }
  return count;
}

/** Code-like lines needed for `format: "any"` to see code outside fences. */
const MIN_CODE_LINES = 2;

export const containsCode = defineCheck({
  type: "contains_code",
  params: z.strictObject({
    format: z.enum(["any", "fenced"]).optional(),
    languages: z.array(z.string().trim().min(1).max(50)).min(1).max(50).optional(),
    not: z.boolean().optional(),
  }),
  run: ({ format = "any", languages, not }, ctx) => {
    const text = clip(ctx.text);
    const wanted = languages?.map(normalizeLanguage);
    const blocks = findFencedBlocks(text).filter((block) => !wanted || (block.language !== null && wanted.includes(block.language)));
    const codeLines = format === "any" && !wanted ? countCodeLines(text) : 0;
    const found = blocks.length > 0 || codeLines >= MIN_CODE_LINES;
    const found_languages = [...new Set(blocks.flatMap((block) => (block.language ? [block.language] : [])))];
    const what = wanted ? `code in ${wanted.join(", ")}` : "code";
    let explanation: string;
    if (blocks.length > 0) explanation = `The text contains ${plural(blocks.length, "fenced code block")}${wanted ? ` in ${wanted.join(", ")}` : ""}.`;
    else if (found) explanation = `The text contains ${plural(codeLines, "line")} that look like code.`;
    else explanation = `The text contains no ${what}.`;
    if (not && found) explanation += " Code is not allowed.";
    if (!not && !found) explanation += " Code is required.";
    return {
      verdict: not ? !found : found,
      explanation,
      data: { found, blocks: blocks.length, code_lines: codeLines, languages: found_languages },
    };
  },
});
