/**
 * User-supplied regular expressions (the `regex_match` check, `pattern` and `patternProperties`
 * of `json_schema` checks) run on RE2 (`re2js`, pure JavaScript), whose matching time grows
 * linearly with the text: no pattern can backtrack, so none can hold the event loop the way
 * `^(a+)+$` does in a backtracking engine. The price is RE2 syntax: no backreferences, no
 * lookaround. Syntax: https://github.com/google/re2/wiki/Syntax
 */
import { RE2JS } from "re2js";

/**
 * A pattern whose compiled program has more instructions than this is refused. Matching costs
 * at worst about program size × text length, so this bounds one test (counted repetitions such
 * as `(?:[a-z]{0,9}){100}` expand far beyond their written length).
 */
export const MAX_PROGRAM_SIZE = 1024;

/**
 * A pattern longer than this many characters is refused before it is compiled: RE2 compiles in
 * time and memory growing with the written pattern, and a wide character class stays a small
 * program however long it is written.
 */
export const MAX_PATTERN_CHARS = 1000;

/** Flags a pattern may carry: `i`, `m`, `s` as in JavaScript; `u` is accepted and changes nothing (RE2 always matches by code point). */
export const PATTERN_FLAGS = /^[imsu]*$/;

/** A compiled pattern: `test` answers whether it matches anywhere in the text. */
export interface LinearRegex {
  test(text: string): boolean;
}

export type CompiledPattern = { ok: true; regex: LinearRegex } | { ok: false; message: string };

const UNSUPPORTED = "RE2 syntax has no backreferences or lookaround";

/** The RE2 flag bits for JavaScript-style flags (unknown letters are the caller's to refuse). */
function flagBits(flags: string): number {
  let bits = 0;
  if (flags.includes("i")) bits |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes("m")) bits |= RE2JS.MULTILINE;
  if (flags.includes("s")) bits |= RE2JS.DOTALL;
  return bits;
}

/**
 * Compiles `pattern` (RE2 syntax) with `flags` from `PATTERN_FLAGS`. The message says why a
 * pattern is refused: a syntax error (with a reminder of what RE2 lacks) or a program past
 * `MAX_PROGRAM_SIZE`, or one longer than `MAX_PATTERN_CHARS`. Never throws.
 */
export function compilePattern(pattern: string, flags = ""): CompiledPattern {
  if (!PATTERN_FLAGS.test(flags)) return { ok: false, message: "flags may only use i, m, s and u" };
  if (pattern.length > MAX_PATTERN_CHARS) return { ok: false, message: `it is longer than ${MAX_PATTERN_CHARS} characters` };
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern, flagBits(flags));
  } catch (error) {
    const reason = error instanceof Error ? error.message : "it does not compile";
    return { ok: false, message: `${reason}; ${UNSUPPORTED}` };
  }
  const size = compiled.programSize();
  if (size > MAX_PROGRAM_SIZE) {
    return { ok: false, message: `it compiles to ${size} instructions, more than the ${MAX_PROGRAM_SIZE} allowed; use smaller repetition counts` };
  }
  return { ok: true, regex: compiled };
}
