import { listLogsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { GatewayError } from "../errors.ts";
import { logSelection } from "../logging/log-filter-query.ts";
import { decodeCursor, encodeCursor, logSummaryView } from "../logging/log-view.ts";

export function registerListLogs(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(listLogsRoute, async (c) => {
    const auth = c.get("auth");
    const query = c.req.valid("query");
    let before: string | undefined;
    if (query.cursor !== undefined) {
      before = decodeCursor(query.cursor) ?? undefined;
      if (!before) throw new GatewayError("invalid_request", "cursor is not a cursor this gateway issued.", { param: "cursor" });
    }
    const { records, hasMore } = await deps.store.logs.list({
      ...logSelection(auth.workspaceId, query, c.req.url),
      before,
      limit: query.limit ?? 50,
    });
    const last = records.at(-1);
    return c.json(
      {
        object: "list" as const,
        data: records.map(logSummaryView),
        has_more: hasMore,
        next_cursor: hasMore && last ? encodeCursor(last.id) : null,
      },
      200,
    );
  });
}
