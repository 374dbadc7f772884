// The timestamp part changes once per millisecond; ids made in the same one share it.
let prefixMs = -1;
let prefix = "";

/**
 * A UUIDv7 (RFC 9562): 48-bit millisecond timestamp, then random bits. Ids made later
 * sort after earlier ones, so a log id is also its pagination cursor, and new ids land at
 * the end of an index instead of on a random page. Built from a v4: its random bits and
 * variant are kept, its first 12 hex digits become the timestamp and the version becomes 7.
 */
export function uuidv7(now: number = Date.now()): string {
  if (now !== prefixMs) {
    const time = now.toString(16).padStart(12, "0");
    prefix = `${time.slice(0, 8)}-${time.slice(8, 12)}-7`;
    prefixMs = now;
  }
  return prefix + crypto.randomUUID().slice(15);
}

export function uuidv4(): string {
  return crypto.randomUUID();
}

let isoMs = -1;
let iso = "";

/** ISO 8601 UTC with milliseconds and `Z`. */
export function isoNow(now: number = Date.now()): string {
  if (now !== isoMs) {
    iso = new Date(now).toISOString();
    isoMs = now;
  }
  return iso;
}
