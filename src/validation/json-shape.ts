import { MAX_JSON_DEPTH } from "./json-depth.ts";

/**
 * How many keys one JSON object in a request body may hold. Objects of millions of keys cost
 * seconds to build and every walk over them as long again (a runtime keeps such an object as a
 * dictionary); no body of the operations the gateway serves needs more than a few hundred.
 */
export const MAX_JSON_OBJECT_KEYS = 10_000;

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;
const COMMA = 44;

/**
 * What makes a JSON text too costly to parse and check: nesting deeper than `MAX_JSON_DEPTH`, or
 * an object of more than `MAX_JSON_OBJECT_KEYS` keys; null when neither. Reads the text once
 * before it is parsed, jumping from quote to quote through strings, so the cost of a refusal is
 * a fraction of the parse it spares. Text that is not JSON is left to the parser. Never throws.
 */
export function jsonShapeProblem(text: string, maxDepth: number = MAX_JSON_DEPTH, maxKeys: number = MAX_JSON_OBJECT_KEYS): string | null {
  // Per open container: the commas seen so far in an object, or -1 for an array.
  const commas = new Int32Array(maxDepth + 1);
  let depth = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      index = closingQuote(text, index);
      if (index < 0) return null;
    } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (depth === maxDepth) return `The JSON body is nested deeper than ${maxDepth} levels.`;
      commas[depth] = code === OPEN_OBJECT ? 0 : -1;
      depth += 1;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      if (depth > 0) depth -= 1;
    } else if (code === COMMA && depth > 0) {
      const seen = commas[depth - 1] as number;
      if (seen < 0) continue;
      if (seen + 1 >= maxKeys) return `An object in the JSON body has more than ${maxKeys} keys.`;
      commas[depth - 1] = seen + 1;
    }
  }
  return null;
}

/** The index of the quote that closes the string opened at `open`, or -1 when none does. */
function closingQuote(text: string, open: number): number {
  let close = text.indexOf('"', open + 1);
  while (close > 0) {
    let backslashes = 0;
    while (text.charCodeAt(close - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return close;
    close = text.indexOf('"', close + 1);
  }
  return -1;
}
