/**
 * `pii` — fails when the text contains personal data of the chosen `categories` (default: all).
 * `data.categories` lists the categories found and `data.counts` how many of each; the matched
 * values themselves are never reported. Detection is conservative (formatted values only):
 * - `email`: `local@domain.tld`.
 * - `phone`: international `+<country> …` numbers of 8–15 digits, and North-American
 *   `(555) 123-4567` / `555-123-4567` / `555.123.4567`.
 * - `credit_card`: 13–19 digits, bare or grouped by spaces or dashes (groups of 4, or Amex
 *   4-6-5), passing the Luhn check (a non-Luhn number is not a card).
 * - `ip_address`: IPv4 and IPv6 addresses, confirmed with `node:net` `isIP` (loopback and private
 *   addresses count too).
 * - `national_id`: US SSN `###-##-####` (area not 000, 666 or 9xx; group and serial not zero),
 *   UK National Insurance numbers (`AB 12 34 56 C`, valid prefixes only, upper case), and
 *   Canadian SINs `###-###-###` / `### ### ###` passing Luhn.
 * Only the first 100,000 characters are scanned.
 */
import { isIP } from "node:net";
import { z } from "zod";
import { clip } from "../limits.ts";
import { defineCheck } from "../types.ts";

export const PII_CATEGORIES = ["email", "phone", "credit_card", "ip_address", "national_id"] as const;
export type PiiCategory = (typeof PII_CATEGORIES)[number];

/** The Luhn checksum test over a string of digits. */
export function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

const EMAIL = /(?<![\w.%+-])[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,24}(?![\w-])/g;
const PHONE_INTL = /(?<![\w+])\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?){2,5}(?![\w])/g;
const PHONE_NANP = /(?<![\w+-])(?:\(\d{3}\) ?|\d{3}[-. ])\d{3}[-. ]\d{4}(?![\w-])/g;
const CARD = /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g;
const IPV4 = /(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w]|\.\d)/g;
const IPV6 = /(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{1,4}|(?:\d{1,3}\.){3}\d{1,3})?(?![\w:])/g;
const SSN = /(?<![\w-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\w-])/g;
const UK_NINO = /(?<!\w)(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?!\w)/g;
const CA_SIN = /(?<![\w-])[1-79]\d{2}([ -])\d{3}\1\d{3}(?![\w-])/g;

function isCardNumber(candidate: string): boolean {
  const digits = candidate.replace(/[ -]/g, "");
  if (digits.length < 13 || digits.length > 19 || /^(\d)\1*$/.test(digits) || !luhn(digits)) return false;
  const separators = new Set(candidate.replace(/\d/g, ""));
  if (separators.size === 0) return true;
  if (separators.size > 1) return false;
  const groups = candidate.split(/[ -]/).map((group) => group.length);
  const amex = groups.join(",") === "4,6,5" || groups.join(",") === "4,6,4";
  const fours = groups.slice(0, -1).every((length) => length === 4) && (groups.at(-1) ?? 0) <= 4;
  return amex || fours;
}

type Span = [start: number, end: number];

function spans(text: string, pattern: RegExp, accept: (match: string) => boolean = () => true): Span[] {
  const found: Span[] = [];
  for (const match of text.matchAll(pattern)) if (accept(match[0])) found.push([match.index, match.index + match[0].length]);
  return found;
}

/** How many distinct values the spans cover: overlapping spans (one value seen by two patterns) count once. */
function distinct(...lists: Span[][]): number {
  const all = lists.flat().sort((a, b) => a[0] - b[0]);
  let values = 0;
  let end = -1;
  for (const [start, stop] of all) {
    if (start >= end) values++;
    end = Math.max(end, stop);
  }
  return values;
}


/** The spans of each category's values, overlapping ones as found. */
const SPANS: Record<PiiCategory, (text: string) => Span[]> = {
  email: (text) => spans(text, EMAIL),
  phone: (text) => [
    ...spans(text, PHONE_INTL, (match) => {
      const digits = match.replace(/\D/g, "").length;
      return digits >= 8 && digits <= 15;
    }),
    ...spans(text, PHONE_NANP),
  ],
  credit_card: (text) => spans(text, CARD, isCardNumber),
  ip_address: (text) => [...spans(text, IPV4, (match) => isIP(match) === 4), ...spans(text, IPV6, (match) => isIP(match) === 6 && /\d/.test(match))],
  national_id: (text) => [...spans(text, SSN), ...spans(text, UK_NINO), ...spans(text, CA_SIN, (match) => luhn(match.replace(/\D/g, "")))],
};

/**
 * The text with every value of the categories replaced by `[REDACTED:<category>]` (values two
 * patterns both found are replaced once). Only the first 100,000 characters are scanned, as in
 * `detectPii`; the rest passes unchanged.
 */
export function redactPii(text: string, categories: readonly PiiCategory[] = PII_CATEGORIES): string {
  const scanned = clip(text);
  const found = categories.flatMap((category) => SPANS[category](scanned).map(([start, end]) => ({ start, end, category })));
  if (found.length === 0) return text;
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  let out = "";
  let at = 0;
  for (const { start, end, category } of found) {
    if (start < at) continue;
    out += `${text.slice(at, start)}[REDACTED:${category}]`;
    at = end;
  }
  return out + text.slice(at);
}

/** How many values of each category the text holds (categories with none are left out). */
export function detectPii(text: string, categories: readonly PiiCategory[] = PII_CATEGORIES): Partial<Record<PiiCategory, number>> {
  const scanned = clip(text);
  const counts: Partial<Record<PiiCategory, number>> = {};
  for (const category of categories) {
    const found = distinct(SPANS[category](scanned));
    if (found > 0) counts[category] = found;
  }
  return counts;
}

export const pii = defineCheck({
  type: "pii",
  params: z.strictObject({
    categories: z.array(z.enum(PII_CATEGORIES)).min(1).optional(),
  }),
  run: ({ categories }, ctx) => {
    const checked = categories ? [...new Set(categories)] : [...PII_CATEGORIES];
    const counts = detectPii(ctx.text, checked);
    const found = checked.filter((category) => counts[category] !== undefined);
    if (found.length === 0) {
      return { verdict: true, explanation: "The text contains no personal data.", data: { categories: [], counts: {} } };
    }
    const names = found.map((category) => category.replace("_", " ")).join(", ");
    return { verdict: false, explanation: `The text contains personal data (${names}).`, data: { categories: found, counts } };
  },
});
