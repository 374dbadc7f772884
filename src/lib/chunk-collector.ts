/**
 * Keeps memory flat while a large body streams through JavaScript (an upload the gateway meters
 * or limits as it passes). Each chunk such a stream hands on is garbage once it has gone, and a
 * runtime sized for the gateway's heap lets tens of MB of them pile up before it collects (under
 * Bun, about half of a 100 MiB upload). A young-generation collection every `everyBytes` passed
 * frees them as they go; each takes a fraction of a millisecond. Where the runtime offers no such
 * collection (Node, whose young generation is collected promptly anyway), nothing is done.
 */
export function chunkCollector(everyBytes: number, collect: (() => void) | undefined = youngCollection()): (chunkBytes: number) => void {
  if (!collect) return () => {};
  let sinceCollection = 0;
  return (chunkBytes) => {
    sinceCollection += chunkBytes;
    if (sinceCollection < everyBytes) return;
    sinceCollection = 0;
    collect();
  };
}

/** How many bytes pass between two collections of an upload's chunks. */
export const UPLOAD_COLLECTION_BYTES = 4 * 1024 * 1024;

/** The runtime's young-generation collection where it offers one (Bun's `Bun.gc(false)`). */
function youngCollection(): (() => void) | undefined {
  const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;
  return bun ? () => bun.gc(false) : undefined;
}
