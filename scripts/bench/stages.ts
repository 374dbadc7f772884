/**
 * A CPU profile's time split by stage of the request path: each sample goes to the stage of the
 * innermost frame on its stack whose source a stage claims (a `JSON.parse` called from the
 * request reader is reading the request; Bun's `fetch` called from `pinned-fetch.ts` is the
 * upstream call). A sample with no claimed frame on its stack is the runtime's own work: serving
 * HTTP, collecting garbage, timers.
 */
import { parentsOf, workSamples, type CpuProfile } from "./cpu-profile.ts";

export interface StageCost {
  stage: string;
  /** Sampled time, µs per request. */
  usPerRequest: number;
  /** Share of the thread's sampled time, 0–100. */
  percent: number;
}

type StageRules = ReadonlyArray<readonly [stage: string, source: RegExp]>;

/** The runtime's own work: no frame of the gateway's or a package's code on the stack. */
export const RUNTIME_STAGE = "runtime, no gateway code on the stack (HTTP server, GC, timers)";

/** The request thread's stages, in the order of the path; the first rule a frame's source matches names its stage. */
export const REQUEST_THREAD_STAGES: StageRules = [
  ["authentication", /\/src\/(middleware\/authenticate|control-plane\/(gateway-key-service|auth-context|key-expiry))/],
  ["reading the request (body, checks)", /\/src\/(middleware\/read-body|validation\/|generated\/request-checks|routes\/proxy\/request-reader)/],
  ["limits and budgets", /\/src\/spend\//],
  ["cache", /\/src\/cache\//],
  ["guardrails", /\/src\/(guardrails\/|pipeline\/guardrail-stage)/],
  ["config and plan", /\/src\/(pipeline\/(request-config|routing-plan|route-conditions|experiment-variant|config-|storable-config|virtual-key-lookup|target-resolution|custom-host-base)|control-plane\/)/],
  ["routing loop", /\/src\/pipeline\/(routing-loop|circuit-breaker|exchange)/],
  ["building the upstream request", /\/src\/(pipeline\/upstream-request|net\/(header-rules|sent-credentials|custom-host)|operation\/(descriptor|field-overrides)|providers\/)/],
  ["upstream call", /\/src\/net\/(upstream-call|pinned-fetch)/],
  ["reading the answer", /\/src\/(pipeline\/(json-answer|upstream-answer|stream-relay)|families\/|streams\/)/],
  ["log entry", /\/src\/(logging\/outcome|middleware\/log-requests|lib\/body-capture)/],
  ["hand-off to the log worker", /\/src\/logging\/(log-writer|worker-log-sink|log-entry\.ts|log-spool)/],
  ["telemetry and metrics", /\/src\/(telemetry|analytics)\//],
  ["HTTP router and middleware", /\/node_modules\/hono\/|\/src\/(middleware|server)\//],
  ["the operation's route and pipeline", /\/src\/(routes|pipeline|operation)\//],
  ["gateway, elsewhere", /\/src\//],
  ["packages", /\/node_modules\//],
];

/** Sampled time per stage over the window, µs per request, in the rules' order (empty stages left out). */
export function stageTimes(
  profile: CpuProfile,
  window: { fromUs: number; toUs: number },
  options: { intervalUs: number; requests: number; rules: StageRules },
): StageCost[] {
  const urls = new Map(profile.nodes.map((node) => [node.id, node.callFrame.url]));
  const parents = parentsOf(profile);
  const stageOfNode = new Map<number, string>();
  const stageOf = (id: number): string => {
    const known = stageOfNode.get(id);
    if (known !== undefined) return known;
    let stage = RUNTIME_STAGE;
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
      const url = decodeURIComponent(urls.get(at) ?? "");
      const rule = url === "" ? undefined : options.rules.find(([, source]) => source.test(url));
      if (rule) {
        stage = rule[0];
        break;
      }
    }
    stageOfNode.set(id, stage);
    return stage;
  };
  const totals = new Map<string, number>();
  let sampledUs = 0;
  for (const { id, us } of workSamples(profile, window, options.intervalUs)) {
    const stage = stageOf(id);
    totals.set(stage, (totals.get(stage) ?? 0) + us);
    sampledUs += us;
  }
  const order = [...options.rules.map(([stage]) => stage), RUNTIME_STAGE];
  return order
    .filter((stage) => totals.has(stage))
    .map((stage) => ({ stage, usPerRequest: totals.get(stage)! / options.requests, percent: sampledUs === 0 ? 0 : (totals.get(stage)! / sampledUs) * 100 }));
}
