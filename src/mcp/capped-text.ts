/** How the gateway cuts a tool's text to a size, saying so. Pure. */

/**
 * Text cut to `maxBytes` (UTF-8), with a note saying so. `totalBytes` is the size of what the
 * text is the start of, when it was cut already as it was read.
 */
export function capped(text: string, maxBytes: number, totalBytes?: number): string {
  const bytes = Buffer.byteLength(text);
  const total = Math.max(bytes, totalBytes ?? bytes);
  if (total <= maxBytes) return text;
  const cut = bytes <= maxBytes ? text : Buffer.from(text).subarray(0, maxBytes).toString("utf8").replace(/\uFFFD$/, "");
  return `${cut}\n[truncated by the gateway: ${Math.min(maxBytes, bytes)} of ${total} bytes]`;
}
