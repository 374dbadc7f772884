/**
 * A deterministic text featurisation that stands in for an embedding model in tests and in
 * `npm run bench:cache` without a real provider: the content words of a text (lower-cased, a
 * few suffixes stripped, function words dropped), each hashed to a signed dimension, the
 * vector normalised. Texts that share their content words score near 1 whatever their word
 * order, punctuation or filler ("please", "can you tell me"); a different entity, a different
 * number, a negation or another language changes words and scores lower. Negations and numbers
 * weigh double: one of them decides the meaning.
 */
export const FEATURE_DIMENSIONS = 256;

const FUNCTION_WORDS = new Set(
  (
    "a an the of to in on at for from by with about as into over is are was were be been being am do does did doing have has had " +
    "i me my you your we our it its this that these those there here what which who whom whose how why when where " +
    "can could would should will shall may might must please tell show give explain describe let know want need like " +
    "and or but so if then than just also very really quite some any s t d ll re ve m"
  ).split(" "),
);
const NEGATIONS = new Set(["not", "no", "never", "none", "nothing", "nobody", "neither", "nor", "without", "cannot"]);

/** The weighted content tokens of a text. */
export function contentTokens(text: string): Array<{ token: string; weight: number }> {
  const words = text
    .toLowerCase()
    .replace(/n't\b/g, " not")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "");
  const tokens: Array<{ token: string; weight: number }> = [];
  for (const word of words) {
    if (NEGATIONS.has(word)) tokens.push({ token: "not", weight: 2 });
    else if (/^\p{N}+$/u.test(word)) tokens.push({ token: word, weight: 2 });
    else if (!FUNCTION_WORDS.has(word)) tokens.push({ token: stem(word), weight: 1 });
  }
  return tokens;
}

/** A few English suffixes, so "cities" and "city", "running" and "run" meet. */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith("ing")) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith("ed")) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

function fnv1a(text: string, seed: number): number {
  let hash = 0x811c9dc5 ^ seed;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The text's unit vector of `FEATURE_DIMENSIONS` dimensions (a fixed one for a text with no content word). */
export function featureVector(text: string): number[] {
  const vector = new Array<number>(FEATURE_DIMENSIONS).fill(0);
  const tokens = contentTokens(text);
  if (tokens.length === 0) tokens.push({ token: "\u0000empty", weight: 1 });
  for (const { token, weight } of tokens) {
    const sign = fnv1a(token, 7) & 1 ? 1 : -1;
    vector[fnv1a(token, 0) % FEATURE_DIMENSIONS]! += sign * weight;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}

export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}
