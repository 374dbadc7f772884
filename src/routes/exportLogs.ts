import { exportLogsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { reportFailureAfterAnswer } from "../app-errors.ts";
import { logFiltersOf } from "../logging/log-filter-query.ts";
import { EXPORT_FORMATS, exportWriter } from "../logging/log-export-formats.ts";
import { EXPORT_PAGE_ROWS, EXPORT_PAGE_ROWS_WITH_BODIES, logExportStream } from "../logging/log-export-stream.ts";

/** The most records one export writes; the document's bound on `limit`. */
const MAX_EXPORT_RECORDS = 1_000_000;

export function registerExportLogs(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(exportLogsRoute, async (c) => {
    const query = c.req.valid("query");
    const filters = logFiltersOf(query, c.req.url, c.get("auth").workspaceId);
    const format = EXPORT_FORMATS[query.format ?? "jsonl"];
    const bodies = query.include_bodies === true;
    const { method, path } = c.req;
    // The first page is read here: a store that is away now is answered 503 by the error handler.
    const body = await logExportStream(
      (before, limit) => deps.store.logs.list({ ...filters, before, limit }, { bodies }),
      exportWriter(query.format ?? "jsonl", bodies),
      {
        limit: query.limit ?? MAX_EXPORT_RECORDS,
        signal: c.req.raw.signal,
        pageRows: bodies ? EXPORT_PAGE_ROWS_WITH_BODIES : EXPORT_PAGE_ROWS,
        onFailure: (error) => reportFailureAfterAnswer(error, method, path),
      },
    );
    // Colons are not allowed in file names on Windows.
    const stamp = new Date().toISOString().replace(/\.\d+Z$/, "Z").replaceAll(":", "-");
    return new Response(body, {
      status: 200,
      headers: {
        "content-type": format.contentType,
        "content-disposition": `attachment; filename="logs-${stamp}.${format.extension}"`,
        "cache-control": "no-store",
      },
    });
  });
}
