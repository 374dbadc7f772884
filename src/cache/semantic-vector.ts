/**
 * The semantic cache's check of an embedding vector, before it is searched for or indexed.
 *
 * The index keeps vectors at a lower precision than the float64 numbers an embedding answer
 * holds (float16 by default). A component that is finite in float64 but past the largest finite
 * value of the stored kind (1e5 for float16, 1e39 for float32) becomes infinite in the index, and
 * a cosine with an infinite component is no measure at all: usearch then scores unrelated
 * vectors as identical. So a vector is used only when it has the expected dimensions, every
 * component is finite at the stored precision, and its norm is finite and not zero; it is then
 * scaled to unit length in float64 before it is cast, so the index compares directions only.
 */

/** How the index stores a vector's components. */
export type ScalarKind = "f16" | "f32";

/** The largest finite value of each stored kind. */
export const LARGEST_FINITE: Readonly<Record<ScalarKind, number>> = { f16: 65_504, f32: 3.4028234663852886e38 };

const KIND_NAME: Readonly<Record<ScalarKind, string>> = { f16: "float16", f32: "float32" };

/**
 * The most dimensions a vector may have (the largest embedding models answer 4,096; an index's
 * memory per vector grows with them).
 */
export const MAX_DIMENSIONS = 16_384;

/** A vector fit for the index (unit length, float32), or why it is not, for the request's `cache_note`. */
export type VectorCheck = { ok: true; vector: Float32Array } | { ok: false; reason: string };

export interface VectorExpectation {
  scalar: ScalarKind;
  /** The partition's index dimensions, when it has an index; any up to `MAX_DIMENSIONS` otherwise. */
  dimensions?: number;
}

/** Checks a vector against what the index stores and returns it scaled to unit length. Never throws. */
export function checkVector(vector: ArrayLike<number>, expected: VectorExpectation): VectorCheck {
  const { length } = vector;
  if (length === 0) return { ok: false, reason: "it has no components" };
  if (expected.dimensions !== undefined && length !== expected.dimensions) {
    return { ok: false, reason: `it has ${length} dimensions, the partition's index ${expected.dimensions}` };
  }
  if (length > MAX_DIMENSIONS) return { ok: false, reason: `it has ${length} dimensions, more than ${MAX_DIMENSIONS}` };
  const largest = LARGEST_FINITE[expected.scalar];
  let peak = 0;
  for (let i = 0; i < length; i++) {
    const magnitude = Math.abs(vector[i]!);
    // Written so that NaN fails too.
    if (!(magnitude <= largest)) {
      return { ok: false, reason: `component ${i} (${vector[i]}) is not a finite ${KIND_NAME[expected.scalar]} (largest ${largest})` };
    }
    if (magnitude > peak) peak = magnitude;
  }
  if (peak === 0) return { ok: false, reason: "its norm is zero" };
  // Scaled by the largest magnitude first: no square underflows to zero or overflows.
  let squares = 0;
  for (let i = 0; i < length; i++) squares += (vector[i]! / peak) ** 2;
  const scaledNorm = Math.sqrt(squares);
  if (!(peak * scaledNorm > 0 && Number.isFinite(peak * scaledNorm))) return { ok: false, reason: "its norm is not a finite positive number" };
  const unit = new Float32Array(length);
  for (let i = 0; i < length; i++) unit[i] = vector[i]! / peak / scaledNorm;
  return { ok: true, vector: unit };
}
