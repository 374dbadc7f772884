/** The API's shapes the dashboard reads (openapi/gateway.yaml). */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
}

export interface Attempt {
  target: number;
  provider: string;
  model: string | null;
  status: number | null;
  latency_ms: number;
  error_code: string | null;
  error_message: string | null;
}

export interface LogSummary {
  id: string;
  created_at: string;
  api_key_id: string | null;
  virtual_key_id: string | null;
  provider: string | null;
  model: string | null;
  route: string;
  method: string;
  path: string;
  status: number;
  success: boolean;
  stream: boolean;
  latency_ms: number;
  time_to_first_token_ms: number | null;
  usage: Usage;
  cost_usd: number | null;
  user: string | null;
  metadata: Record<string, string>;
  trace_id: string;
  span_id: string | null;
  parent_span_id: string | null;
  span_name: string | null;
  prompt_id: string | null;
  prompt_version: number | null;
  error: { code: string | null; message: string | null } | null;
  attempts: Attempt[];
  cache_status?: string | null;
  config?: string | null;
}

export interface Body {
  body: unknown;
  truncated: boolean;
  size_bytes: number | null;
  [extra: string]: unknown;
}

export interface CheckResult {
  [field: string]: unknown;
}

export interface GuardrailResult {
  guardrail: string;
  stage: "input" | "output";
  verdict: boolean;
  deny: boolean;
  checks: CheckResult[];
}

export interface LogRecord extends LogSummary {
  request: Body;
  response: Body;
  guardrail_results: GuardrailResult[];
}

export interface List<T> {
  object: "list";
  data: T[];
  has_more?: boolean;
  next_cursor?: string | null;
  total?: number;
}

export interface VirtualKey {
  id: string;
  slug: string;
  name: string;
  provider: string;
  masked_key: string;
  upstream_organization: string | null;
  upstream_project: string | null;
  custom_host: string | null;
  budget: { credit_limit_usd: number; period?: "none" | "weekly" | "monthly" } | null;
  rate_limit: { requests_per_minute?: number; tokens_per_minute?: number } | null;
  created_at: string;
  updated_at: string;
}

export interface ApiKey {
  id: string;
  name: string;
  role: "admin" | "service";
  key_prefix: string;
  created_at: string;
  revoked_at: string | null;
  key?: string;
}

export interface Percentiles {
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

export interface Summary {
  requests: number;
  errors: number;
  error_rate: number;
  cost_usd: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  latency_ms: Percentiles;
  time_to_first_token_ms: Percentiles;
}

export interface Bucket {
  start: string;
  requests: number;
  errors: number;
  error_rate: number;
  cost_usd: number;
  total_tokens: number;
  latency_ms: Percentiles;
}

export interface Group {
  key: string | null;
  requests: number;
  errors: number;
  cost_usd: number;
  total_tokens: number;
  latency_ms: Percentiles;
}

export interface Feedback {
  id: string;
  trace_id: string;
  value: number;
  weight: number;
  metadata: Record<string, unknown>;
  created_at: string;
}
