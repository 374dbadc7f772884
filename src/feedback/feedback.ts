import type { Feedback } from "../generated/schemas.gen.ts";
import { GatewayError } from "../errors.ts";
import type { FeedbackRecord } from "../store/feedback-repository.ts";

/** Bounds of a feedback's metadata, so one row stays small (the document states them). */
export const FEEDBACK_METADATA_LIMITS = { pairs: 32, keyChars: 64 } as const;

/**
 * The metadata bounds the generated validator cannot state (zod keeps no key count or key
 * length): a 400 naming `metadata`, or null when the metadata fits.
 */
export function feedbackMetadataError(metadata: Record<string, string>): GatewayError | null {
  const keys = Object.keys(metadata);
  if (keys.length > FEEDBACK_METADATA_LIMITS.pairs) {
    return new GatewayError("invalid_request", `metadata has ${keys.length} keys; at most ${FEEDBACK_METADATA_LIMITS.pairs} are allowed.`, { param: "metadata" });
  }
  const bad = keys.find((key) => key.length === 0 || key.length > FEEDBACK_METADATA_LIMITS.keyChars);
  if (bad !== undefined) {
    return new GatewayError("invalid_request", `metadata keys must be 1 to ${FEEDBACK_METADATA_LIMITS.keyChars} characters long.`, { param: "metadata" });
  }
  return null;
}

/** The API shape of stored feedback. */
export function feedbackView(record: FeedbackRecord): Feedback {
  return {
    object: "feedback",
    id: record.id,
    trace_id: record.traceId,
    value: record.value,
    weight: record.weight,
    metadata: record.metadata,
    created_at: record.createdAt,
  };
}
