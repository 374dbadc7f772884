import { uuidv7 } from "../../src/lib/ids.ts";
import type { LogRecord } from "../../src/records/log-record.ts";

/**
 * Realistic log records for the store benchmark, generated in time order: 100 workspaces (the
 * first with half the traffic, the others a skewed share of the rest), 10,000 end users with a
 * skewed share, 30 models of six providers, twelve virtual keys, 6% failures, log-normal
 * latencies, streams with a time to first token, and five metadata keys: `env`, `team` and
 * `region` on every record, `feature` on one in three, a `session` id on one in ten.
 */
export const WORKSPACE_COUNT = 100;
export const WORKSPACES = ["00000000-0000-4000-8000-000000000002", ...Array.from({ length: WORKSPACE_COUNT - 1 }, (_, i) => `ws-bench-${String(i + 1).padStart(3, "0")}`)];
export const USER_COUNT = 10_000;
const PROVIDERS = [
  ["openai", 2.5, 10],
  ["anthropic", 3, 15],
  ["groq", 0.59, 0.79],
  ["mistral", 2, 6],
  ["google", 0.1, 0.4],
  ["bedrock", 0.8, 3.2],
] as const;
/** Thirty models, five per provider: [provider, model, input $/M tokens, output $/M tokens]. */
export const MODELS: ReadonlyArray<readonly [string, string, number, number]> = PROVIDERS.flatMap(([provider, input, output]) =>
  Array.from({ length: 5 }, (_, i) => [provider, `${provider}-model-${i}`, input / (i + 1), output / (i + 1)] as const),
);
/** Zipf-like: model i is picked in proportion to 1 / (i + 1). */
export const MODEL_WEIGHTS = MODELS.map((_, i) => 1 / (i + 1));
/** The metadata keys the bench declares as analytics dimensions (`team` and `region`); `env`, `feature` and `session` are not. */
export const DECLARED_KEYS = ["team", "region"];
export const TEAMS = Array.from({ length: 8 }, (_, i) => `team-${i}`);
export const REGIONS = ["eu-west", "eu-central", "us-east", "us-west", "ap-south"];
export const FEATURE_COUNT = 40;
const FEATURES = Array.from({ length: FEATURE_COUNT }, (_, i) => `feature-${i}`);

/** A small deterministic generator, so every run fills the same store. */
function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function weighted(random: number, weights: readonly number[]): number {
  const total = weights.reduce((a, b) => a + b, 0);
  let pick = random * total;
  for (let i = 0; i < weights.length; i += 1) {
    pick -= weights[i]!;
    if (pick < 0) return i;
  }
  return weights.length - 1;
}

/** A log-normal sample with the given median. */
function logNormal(random: () => number, median: number, sigma: number): number {
  const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return Math.round(median * Math.exp(sigma * normal) * 100) / 100;
}

export const BODY = JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Summarise the attached ticket in two lines, please." }] });
export const ANSWER = JSON.stringify({ id: "chatcmpl-bench", choices: [{ index: 0, message: { role: "assistant", content: "Customer cannot log in after reset; escalated to auth team." } }] });

/** Records `index .. index + count - 1` of `total`, spread evenly over `[startMs, endMs)`. */
export function* generate(total: number, startMs: number, endMs: number, chunk: number): Generator<LogRecord[]> {
  const random = rng(42);
  const step = (endMs - startMs) / total;
  for (let first = 0; first < total; first += chunk) {
    const batch: LogRecord[] = [];
    for (let i = first; i < Math.min(total, first + chunk); i += 1) {
      const ms = Math.floor(startMs + i * step + random() * step);
      const workspaceId = random() < 0.5 ? WORKSPACES[0]! : WORKSPACES[1 + Math.floor((WORKSPACE_COUNT - 1) * random() * random())]!;
      const [provider, model, inPrice, outPrice] = MODELS[weighted(random(), MODEL_WEIGHTS)]!;
      const roll = random();
      const status = roll < 0.94 ? 200 : roll < 0.97 ? 429 : roll < 0.99 ? 500 : 400;
      const success = status === 200;
      const stream = random() < 0.4;
      const promptTokens = success ? 50 + Math.floor(random() * 3000) : 0;
      const completionTokens = success ? 10 + Math.floor(random() * 1000) : 0;
      const userRoll = random();
      const metadata: Record<string, string> = {
        env: ["prod", "prod", "prod", "staging", "dev"][Math.floor(random() * 5)]!,
        team: TEAMS[Math.floor(random() * random() * 8)]!,
        region: REGIONS[Math.floor(random() * REGIONS.length)]!,
      };
      if (random() < 1 / 3) metadata.feature = FEATURES[Math.floor(random() * random() * FEATURES.length)]!;
      if (random() < 0.1) metadata.session = `s-${Math.floor(random() * 1e9)}`;
      const latencyMs = success ? logNormal(random, 800, 0.8) : logNormal(random, 120, 1);
      batch.push({
        id: uuidv7(ms),
        createdAt: new Date(ms).toISOString(),
        organisationId: "org-bench",
        workspaceId,
        apiKeyId: `key-${Math.floor(random() * 4)}`,
        virtualKeyId: random() < 0.2 ? null : `vk-${Math.floor(random() * 12)}`,
        provider,
        model,
        route: "createChatCompletion",
        method: "POST",
        path: "/v1/chat/completions",
        status,
        success,
        stream,
        latencyMs,
        timeToFirstTokenMs: stream && success ? Math.min(latencyMs, logNormal(random, 300, 0.6)) : null,
        promptTokens,
        completionTokens,
        totalTokens: promptTokens + completionTokens,
        cachedTokens: 0,
        reasoningTokens: 0,
        webSearches: 0,
        costUsd: success ? (promptTokens * inPrice + completionTokens * outPrice) / 1e6 : null,
        // Skewed: user-0 is busiest; one request in ten names no user.
        user: userRoll < 0.1 ? null : `user-${Math.floor(USER_COUNT * random() * random())}`,
        metadata,
        traceId: uuidv7(ms),
        spanId: null,
        parentSpanId: null,
        spanName: null,
        requestBody: BODY,
        requestBodyTruncated: false,
        requestBodyBytes: BODY.length,
        responseBody: success ? ANSWER : null,
        responseBodyTruncated: false,
        responseBodyBytes: success ? ANSWER.length : null,
        errorCode: success ? null : "upstream_error",
        errorMessage: success ? null : "upstream answered an error",
        promptId: null,
        promptVersion: null,
        configId: null,
        configVersion: null,
        experimentId: null,
        experimentVariant: null,
        cacheStatus: null,
        cacheSimilarity: null,
        cacheSourceLogId: null,
        cacheNote: null,
        costSavedUsd: null,
        costNote: null,
        guardrailResults: null,
        attempts: [],
        toolRun: [],
      });
    }
    yield batch;
  }
}
