/**
 * What this gateway's API offers, read from its own `/openapi.json`: the log filters `GET /v1/logs`
 * accepts, whether records carry `cache_status`, and whether analytics, feedback, export and
 * experiments exist.
 * The dashboard shows only what the API can answer.
 */
export interface Capabilities {
  logFilters: Set<string>;
  cacheStatus: boolean;
  analytics: boolean;
  feedback: boolean;
  export: boolean;
  experiments: boolean;
}

interface Document {
  paths: Record<string, Record<string, { parameters?: { name?: string; $ref?: string }[] }>>;
  components?: { schemas?: Record<string, unknown>; parameters?: Record<string, { name: string }> };
}

export async function loadCapabilities(): Promise<Capabilities> {
  const response = await fetch("/openapi.json");
  const document = (await response.json()) as Document;
  const parameterName = (parameter: { name?: string; $ref?: string }) =>
    parameter.name ?? (parameter.$ref ? document.components?.parameters?.[parameter.$ref.split("/").pop()!]?.name : undefined);
  const logFilters = new Set((document.paths["/v1/logs"]?.get?.parameters ?? []).map(parameterName).filter((name): name is string => !!name));
  return {
    logFilters,
    cacheStatus: JSON.stringify(document.components?.schemas?.LogSummary ?? {}).includes('"cache_status"'),
    analytics: "/v1/analytics/summary" in document.paths && "/v1/analytics/timeseries" in document.paths,
    feedback: "/v1/feedback" in document.paths,
    export: "/v1/logs/export" in document.paths,
    experiments: "/v1/experiments" in document.paths,
  };
}
