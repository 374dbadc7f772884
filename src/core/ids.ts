import { randomBytes } from "node:crypto";

/**
 * A UUIDv7 (RFC 9562): 48-bit millisecond timestamp, then random bits. Ids made later
 * sort after earlier ones, so a log id is also its pagination cursor.
 */
export function uuidv7(now: number = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function uuidv4(): string {
  return crypto.randomUUID();
}

/** ISO 8601 UTC with milliseconds and `Z`. */
export function isoNow(now: number = Date.now()): string {
  return new Date(now).toISOString();
}
