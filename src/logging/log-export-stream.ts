import type { LogRecord } from "../records/log-record.ts";
import { cutShort } from "../lib/cut-short.ts";
import type { ExportWriter } from "./log-export-formats.ts";

interface LogPage {
  records: LogRecord[];
  hasMore: boolean;
}

/** One page of the store, newest first, older than `before` when given. */
export type ReadLogPage = (before: string | undefined, limit: number) => Promise<LogPage>;

/**
 * Rows read per store query. A page is read only when the client has taken the previous one
 * (the stream's pull), so the export holds about one page at a time whatever its length.
 */
export const EXPORT_PAGE_ROWS = 500;
/**
 * Rows per query when the bodies are read: each body may be up to the logged-body limit
 * (1 MiB by default), so a page stays within about 50 MiB at worst.
 */
export const EXPORT_PAGE_ROWS_WITH_BODIES = 25;

const encoder = new TextEncoder();

/**
 * The export as a byte stream: the header, then page after page by cursor (the last id read),
 * each written as soon as it is read, until the records or `limit` run out. A cancelled stream
 * (the client left) or an aborted `signal` reads no further page.
 *
 * The first page is read before the stream is made: a store that cannot be read then fails the
 * request itself, while its status can still say so (503). A later read that fails goes to
 * `onFailure` and cuts the download short; left in the stream, the server would print it raw.
 */
export async function logExportStream(
  readPage: ReadLogPage,
  writer: ExportWriter,
  options: { limit: number; signal?: AbortSignal; pageRows?: number; onFailure?: (error: unknown) => void },
): Promise<ReadableStream<Uint8Array>> {
  const pageRows = options.pageRows ?? EXPORT_PAGE_ROWS;
  let before: string | undefined;
  let remaining = options.limit;
  const read = (): Promise<LogPage> => readPage(before, Math.min(pageRows, remaining));
  let first: LogPage | undefined = remaining > 0 ? await read() : undefined;
  let headerSent = writer.header === "";
  let stopped = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!headerSent) {
          headerSent = true;
          controller.enqueue(encoder.encode(writer.header));
          return;
        }
        // A pull must enqueue or close: one that resolves with neither leaves the reader waiting.
        for (;;) {
          if (stopped || options.signal?.aborted || remaining <= 0) {
            if (!stopped) controller.close();
            return;
          }
          let page: LogPage;
          try {
            page = first ?? (await read());
          } catch (error) {
            options.onFailure?.(error);
            return cutShort(controller);
          }
          first = undefined;
          if (stopped) return;
          remaining -= page.records.length;
          before = page.records.at(-1)?.id;
          if (!page.hasMore || before === undefined) remaining = 0;
          let text = "";
          for (const record of page.records) text += writer.line(record);
          if (text !== "") {
            controller.enqueue(encoder.encode(text));
            return;
          }
        }
      },
      cancel() {
        stopped = true;
      },
    },
    // Nothing is read ahead of the client: the next page waits for the last to be taken.
    { highWaterMark: 0 },
  );
}
