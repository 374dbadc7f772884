import type { ExperimentAssignment, ExperimentVariant } from "../records/experiment.ts";

/**
 * cyrb53 (a public-domain 53-bit string hash: two 32-bit multiply-xorshift lanes), as a number in
 * [0, 1). The same text gives the same point in every process and runtime, so a unit's variant
 * is the same on every replica without any shared state. Not cryptographic: it only has to
 * spread units evenly, which its avalanche does.
 */
export function hashPoint(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)) / 2 ** 53;
}

/** What a request is known by, for its assignment unit. */
export interface AssignmentFacts {
  /** The body's `user`, else `x-gateway-metadata`'s `_user`. */
  endUser: string | null;
  /** The caller's own `x-gateway-trace-id`. */
  traceId: string | null;
  /** The request's own log id. */
  logId: string;
}

/**
 * The unit that stays in one variant: the end user, the trace or the request, each falling back
 * to the next when the request has none (a request without an end user goes by its trace, one
 * without a trace by itself). Prefixed by kind, so a user named like a trace id is not that trace.
 */
export function assignmentUnit(assignment: ExperimentAssignment, facts: AssignmentFacts): string {
  if (assignment === "user" && facts.endUser) return `user:${facts.endUser}`;
  if (assignment !== "request" && facts.traceId) return `trace:${facts.traceId}`;
  return `request:${facts.logId}`;
}

/**
 * The variant of a unit: its hash point, seeded by the experiment's id (so two experiments split
 * the same users independently), falls in one variant's share of the total weight, the shares
 * laid end to end in the variants' order. Weights are fixed while an experiment runs, so the
 * answer is too. Null only when no weight is above 0 (refused when saved).
 */
export function chooseVariant(experimentId: string, unit: string, variants: readonly ExperimentVariant[]): ExperimentVariant | null {
  const total = variants.reduce((sum, variant) => sum + Math.max(0, variant.weight), 0);
  if (!(total > 0)) return null;
  let point = hashPoint(`${experimentId}\u0000${unit}`) * total;
  for (const variant of variants) {
    if (variant.weight <= 0) continue;
    point -= variant.weight;
    if (point < 0) return variant;
  }
  return variants.findLast((variant) => variant.weight > 0) ?? null;
}
