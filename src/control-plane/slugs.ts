import { randomBytes } from "node:crypto";

/** Slug prefixes: configs `pc-`, guardrails `pg-`, virtual keys `vk-`. */
export type SlugPrefix = "pc" | "pg" | "vk";

const MAX_WORDS = 4;
const MAX_WORD_CHARS = 32;

/**
 * A unique, readable slug: `<prefix>-<words of the name>-<8 hex>`, e.g. `pc-prod-routing-1a2b3c4d`.
 * Words are the name's lowercase ASCII letters and digits; a name with none gives `<prefix>-<prefix>-<hex>`
 * so the form stays `^<prefix>-[a-z0-9]+(-[a-z0-9]+)*-[0-9a-f]{8}$`.
 */
export function makeSlug(prefix: SlugPrefix, name: string): string {
  const words = name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "") // drop the accents NFKD split off: "é" → "e"
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .slice(0, MAX_WORDS)
    .map((word) => word.slice(0, MAX_WORD_CHARS));
  const middle = words.length > 0 ? words.join("-") : prefix;
  return `${prefix}-${middle}-${randomBytes(4).toString("hex")}`;
}
