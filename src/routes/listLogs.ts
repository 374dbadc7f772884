import { listLogsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { GatewayError } from "../errors.ts";
import { decodeCursor, encodeCursor, logSummaryView } from "../logging/log-view.ts";

const METADATA_PARAM = /^metadata\[(.+)\]$/;

/** `metadata[key]=value` pairs (OpenAPI deepObject style), read from the raw query. */
function metadataFilter(url: string): Record<string, string> | undefined {
  const pairs: Record<string, string> = {};
  for (const [name, value] of new URL(url).searchParams) {
    const key = METADATA_PARAM.exec(name)?.[1];
    if (key !== undefined) pairs[key] = value;
  }
  return Object.keys(pairs).length > 0 ? pairs : undefined;
}

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
      workspaceId: auth.workspaceId,
      user: query.user,
      model: query.model,
      provider: query.provider,
      status: query.status,
      success: query.success,
      traceId: query.trace_id,
      promptId: query.prompt_id,
      virtualKeyId: query.virtual_key_id,
      from: query.from,
      to: query.to,
      metadata: metadataFilter(c.req.url),
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
