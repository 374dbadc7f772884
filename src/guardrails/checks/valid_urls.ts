/**
 * `valid_urls` — every URL in the text (a `scheme://…` run up to whitespace, trailing
 * punctuation trimmed; bare `www.` names are not URLs here) must parse as an `http:` or
 * `https:` URL (only `https:` with `only_https: true`) whose host is an IP address, `localhost`
 * or a well-formed domain name. Syntax only: nothing is fetched or resolved. A text without URLs
 * passes (nothing is invalid). Only the first 100,000 characters are scanned. Explanations give
 * counts, never the URLs (they may carry tokens).
 */
import { isIP } from "node:net";
import { z } from "zod";
import { clip, plural } from "../limits.ts";
import { defineCheck } from "../types.ts";

const CANDIDATE = /\b[a-z][a-z0-9+.-]{0,31}:\/\/[^\s<>"'`]+/gi;
const TRAILING = /[.,;:!?'"*_]+$/;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const TLD = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/** Drops trailing punctuation and closing brackets that have no opening partner in the URL. */
function trimCandidate(raw: string): string {
  let url = raw;
  for (;;) {
    const before = url;
    url = url.replace(TRAILING, "");
    const last = url.at(-1);
    const pairs: Record<string, string> = { ")": "(", "]": "[", "}": "{" };
    if (last && pairs[last] && url.split(pairs[last]).length <= url.split(last).length - 1) url = url.slice(0, -1);
    if (url === before) return url;
  }
}

/** URLs found in the text, in order. */
export function findUrls(text: string): string[] {
  return [...clip(text).matchAll(CANDIDATE)].map((match) => trimCandidate(match[0])).filter((url) => url.length > 0);
}

function validHost(hostname: string): boolean {
  const bare = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  if (isIP(bare) !== 0) return true;
  if (bare === "localhost") return true;
  const labels = bare.replace(/\.$/, "").split(".");
  return labels.length >= 2 && labels.every((label) => LABEL.test(label)) && TLD.test(labels.at(-1) ?? "");
}

/** Whether a URL string is a well-formed web URL (https-only on request). */
export function isValidUrl(raw: string, onlyHttps = false): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  const allowed = onlyHttps ? ["https:"] : ["http:", "https:"];
  return allowed.includes(url.protocol) && validHost(url.hostname);
}

export const validUrls = defineCheck({
  type: "valid_urls",
  params: z.strictObject({ only_https: z.boolean().optional() }),
  run: ({ only_https }, ctx) => {
    const urls = findUrls(ctx.text);
    if (urls.length === 0) return { verdict: true, explanation: "The text contains no URLs.", data: { count: 0, invalid: 0 } };
    const invalid = urls.filter((url) => !isValidUrl(url, only_https)).length;
    const kind = only_https ? "valid https URLs" : "valid URLs";
    const explanation =
      invalid === 0
        ? `All ${plural(urls.length, "URL")} in the text are ${kind}.`
        : `${invalid} of ${plural(urls.length, "URL")} in the text are not ${kind}.`;
    return { verdict: invalid === 0, explanation, data: { count: urls.length, invalid } };
  },
});
