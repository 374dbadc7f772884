/**
 * Bounds on prompt templates, so that neither saving nor rendering a prompt can hold the event
 * loop or the stack: the templates of a prompt are checked for size and section depth before
 * they are parsed, and a render stops planning once its work or output passes a bound.
 */

/** The templates (every message's `content`) of one prompt total at most this many UTF-8 bytes. */
export const MAX_TEMPLATE_BYTES = 256 * 1024;
/** Sections (`{{#x}}`, `{{^x}}`) nest at most this deep. */
export const MAX_SECTION_DEPTH = 32;
/** A prompt holds at most this many messages (empty templates take no bytes, so bytes alone do not bound them). */
export const MAX_PROMPT_MESSAGES = 1000;
/** A prompt's templates name at most this many distinct variables. */
export const MAX_TEMPLATE_VARIABLES = 1000;
/** A render visits at most this many tokens (sections over lists visit their children once per item). */
export const MAX_RENDER_STEPS = 200_000;
/** A render produces at most this many characters across the prompt's messages. */
export const MAX_RENDERED_CHARS = 16 * 1024 * 1024;

const SPACE = /\s/;

/**
 * Whether the template's sections nest deeper than `limit`, found by a linear scan of its tags
 * that follows Mustache's scanner (set-delimiter tags included) without building tokens. A tag
 * the scan cannot read ends it with `false`: parsing then reports the syntax error, and the
 * depth of the parsed tokens is checked again. Never throws.
 */
export function nestsDeeperThan(template: string, limit: number): boolean {
  let open = "{{";
  let close = "}}";
  let depth = 0;
  let at = 0;
  for (;;) {
    const start = template.indexOf(open, at);
    if (start < 0) return false;
    let i = start + open.length;
    while (i < template.length && SPACE.test(template.charAt(i))) i++;
    const type = template.charAt(i);
    if (type === "=") {
      const equals = template.indexOf("=", i + 1);
      const end = equals < 0 ? -1 : template.indexOf(close, equals + 1);
      if (end < 0) return false;
      const tags = template.slice(i + 1, equals).trim().split(/\s+/);
      if (tags.length !== 2 || !tags[0] || !tags[1]) return false;
      at = end + close.length;
      [open, close] = [tags[0], tags[1]];
      continue;
    }
    const closing = type === "{" ? `}${close}` : close;
    const end = template.indexOf(closing, i + 1);
    if (end < 0) return false;
    if (type === "#" || type === "^") {
      depth += 1;
      if (depth > limit) return true;
    } else if (type === "/") {
      depth = Math.max(0, depth - 1);
    }
    at = end + closing.length;
  }
}

/**
 * The first limit the templates break, as the index of the message and a sentence, checked
 * before any parsing: the message count, the running byte total, then each template's section depth. Never throws.
 */
export function templateLimitProblem(contents: readonly string[]): { index: number; message: string } | null {
  if (contents.length > MAX_PROMPT_MESSAGES) return { index: MAX_PROMPT_MESSAGES, message: `a prompt holds at most ${MAX_PROMPT_MESSAGES} messages.` };
  let bytes = 0;
  for (const [index, content] of contents.entries()) {
    bytes += Buffer.byteLength(content, "utf8");
    if (bytes > MAX_TEMPLATE_BYTES) {
      return { index, message: `the prompt's templates total more than ${MAX_TEMPLATE_BYTES} bytes (256 KiB).` };
    }
  }
  for (const [index, content] of contents.entries()) {
    if (nestsDeeperThan(content, MAX_SECTION_DEPTH)) return { index, message: `sections nest deeper than ${MAX_SECTION_DEPTH} levels.` };
  }
  return null;
}
