/**
 * Only the first this many characters of a text are checked by the text-scanning checks
 * (regex, PII, URLs, code, JSON): it bounds the work one request can cause.
 */
export const MAX_CHECKED_CHARS = 100_000;

/** The part of `text` the scanning checks look at. */
export function clip(text: string): string {
  return text.length > MAX_CHECKED_CHARS ? text.slice(0, MAX_CHECKED_CHARS) : text;
}

/** Shortens a string for an explanation. */
export function shorten(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** "1 word" / "2 words". */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
