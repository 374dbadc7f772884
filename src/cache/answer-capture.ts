import { eventData, eventName } from "./cache-replay.ts";

/**
 * Relays a body unchanged while keeping a copy, up to `maxBytes`; `onComplete` gets the copy
 * when the body ended cleanly within the limit, `onDropped` otherwise (cut off, failed, too
 * large, or the client left). Pull-based like the body it wraps, so it buffers nothing more.
 */
export function captureBody(
  source: ReadableStream<Uint8Array>,
  maxBytes: number,
  onComplete: (text: string) => void,
  onDropped: () => void,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  let settled = false;
  const drop = (): void => {
    if (settled) return;
    settled = true;
    text = "";
    onDropped();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let read: Awaited<ReturnType<typeof reader.read>>;
        try {
          read = await reader.read();
        } catch (error) {
          drop();
          return controller.error(error);
        }
        if (read.done) {
          controller.close();
          if (settled) return;
          settled = true;
          return onComplete(text + decoder.decode());
        }
        bytes += read.value.byteLength;
        if (bytes > maxBytes) drop();
        else if (!settled) text += decoder.decode(read.value, { stream: true });
        controller.enqueue(read.value);
      },
      cancel(reason) {
        drop();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * A finished stream's events, or null when it must not be cached: it carries an error (the
 * gateway's `event: error` after a failure, an upstream error event, a failed response).
 */
export function cacheableEvents(text: string): string[] | null {
  const events = text
    .split("\n\n")
    .filter((event) => event.trim() !== "")
    .map((event) => `${event}\n\n`);
  return events.some(isErrorEvent) ? null : events;
}

function isErrorEvent(event: string): boolean {
  const name = eventName(event);
  if (name === "error" || name === "response.failed") return true;
  const [data] = eventData(event);
  if (data === undefined || !data.includes('"error"')) return false;
  try {
    const value: unknown = JSON.parse(data);
    return typeof value === "object" && value !== null && "error" in value && (value as { error: unknown }).error !== null;
  } catch {
    return false;
  }
}
