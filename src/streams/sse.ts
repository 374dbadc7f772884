/**
 * Server-sent events: an incremental parser and a writer.
 * https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */

/** One dispatched event. `event` is null when the stream named no type (the spec's "message"). */
export interface SseEvent {
  event: string | null;
  data: string;
  /** The last event ID seen so far in the stream (it persists across events, as in the spec); null when none. */
  id: string | null;
}

export interface SseParser {
  /** Feeds decoded text (any split, even mid-line or between `\r` and `\n`); returns the events completed by it. Never throws. */
  push(text: string): SseEvent[];
  /**
   * Ends the stream: returns the event left unterminated, if any, and resets the parser.
   * Unlike a browser's EventSource, which discards it, this dispatches an event whose final
   * blank line never came, because upstreams sometimes omit it and the last chunk (often the
   * usage) must not be lost. Never throws.
   */
  flush(): SseEvent[];
}

const LF = 10;
const CR = 13;
const LINE_BREAK = /[\r\n]/g;

/**
 * Creates an incremental SSE parser following the WHATWG event-stream rules: lines end in
 * `\r\n`, `\n` or `\r`; a leading BOM is dropped; `:` lines are comments; one space after the
 * field's colon is removed; `data` lines join with `\n`; an event is dispatched on a blank
 * line only when it has data; `id` values containing NUL are ignored; `retry` and unknown
 * fields are ignored.
 */
export function createSseParser(): SseParser {
  let partial = "";
  let atStreamStart = true;
  let skipLeadingLf = false;
  let data = "";
  let hasData = false;
  let eventType = "";
  let lastEventId: string | null = null;

  const dispatch = (out: SseEvent[]): void => {
    if (hasData) out.push({ event: eventType === "" ? null : eventType, data, id: lastEventId });
    data = "";
    hasData = false;
    eventType = "";
  };

  const processLine = (line: string, out: SseEvent[]): void => {
    if (line.length === 0) return dispatch(out);
    const colon = line.indexOf(":");
    if (colon === 0) return;
    let field: string;
    let value: string;
    if (colon === -1) {
      field = line;
      value = "";
    } else {
      field = line.slice(0, colon);
      value = line.charCodeAt(colon + 1) === 32 ? line.slice(colon + 2) : line.slice(colon + 1);
    }
    switch (field) {
      case "data":
        data = hasData ? `${data}\n${value}` : value;
        hasData = true;
        return;
      case "event":
        eventType = value;
        return;
      case "id":
        if (!value.includes("\0")) lastEventId = value;
        return;
      default:
        return;
    }
  };

  return {
    push(text: string): SseEvent[] {
      const out: SseEvent[] = [];
      let start = 0;
      if (atStreamStart && text.length > 0) {
        atStreamStart = false;
        if (text.charCodeAt(0) === 0xfeff) start = 1;
      }
      if (skipLeadingLf && start < text.length) {
        skipLeadingLf = false;
        if (text.charCodeAt(start) === LF) start += 1;
      }
      LINE_BREAK.lastIndex = start;
      for (;;) {
        const match = LINE_BREAK.exec(text);
        if (match === null) {
          partial += text.slice(start);
          break;
        }
        const end = match.index;
        const line = partial.length > 0 ? partial + text.slice(start, end) : text.slice(start, end);
        partial = "";
        processLine(line, out);
        start = end + 1;
        if (text.charCodeAt(end) === CR) {
          if (end + 1 === text.length) skipLeadingLf = true;
          else if (text.charCodeAt(end + 1) === LF) start += 1;
        }
        LINE_BREAK.lastIndex = start;
      }
      return out;
    },

    flush(): SseEvent[] {
      const out: SseEvent[] = [];
      if (partial.length > 0) processLine(partial, out);
      dispatch(out);
      partial = "";
      atStreamStart = true;
      skipLeadingLf = false;
      lastEventId = null;
      return out;
    },
  };
}

/**
 * Writes one event: an `event:` line when a type is given, one `data:` line per line of
 * `data` (split at `\r\n`, `\n` or `\r`), then the blank line. Line breaks inside `event`
 * are removed, since they would end the field early. Never throws.
 */
export function formatSseEvent(message: { event?: string; data: string }): string {
  let out = "";
  if (message.event !== undefined && message.event !== "") out += `event: ${message.event.replace(/[\r\n]/g, "")}\n`;
  const data = message.data;
  if (!data.includes("\n") && !data.includes("\r")) return `${out}data: ${data}\n\n`;
  for (const line of data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}
