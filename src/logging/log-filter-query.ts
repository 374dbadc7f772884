import type { LogSelection } from "../store/log-filter-sql.ts";

/** The filter parameters `GET /v1/logs` and the analytics routes share, as their validators give them. */
export interface LogFilterQuery {
  user?: string;
  model?: string;
  provider?: string;
  status?: number;
  success?: boolean;
  trace_id?: string;
  prompt_id?: string;
  virtual_key_id?: string;
  from?: string;
  to?: string;
}

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

/** The caller's workspace and the query's filters, as the store reads them. */
export function logSelection(workspaceId: string, query: LogFilterQuery, url: string): LogSelection {
  return {
    workspaceId,
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
    metadata: metadataFilter(url),
  };
}
