/**
 * Always-valid inference for a difference of means: the normal-mixture sequential probability
 * ratio test (mSPRT) of Johari, Koomen, Pekelis and Walsh ("Peeking at A/B tests", KDD 2017;
 * "Always valid inference", Operations Research 2022).
 *
 * The estimate Δ̂ of a difference, with variance V (which shrinks as observations arrive), is
 * compared with Δ0 through the likelihood ratio of "Δ drawn from N(Δ0, τ²)" against "Δ = Δ0":
 *
 *   Λ = √(V / (V + τ²)) · exp( τ² (Δ̂ − Δ0)² / (2 V (V + τ²)) )
 *
 * In information time t = 1/V, Δ̂/V is a Brownian motion with drift Δ, and Λ is the mixture of
 * its exponential martingales over the drift, so under Δ = Δ0 it is a nonnegative martingale
 * with mean 1: by Ville's inequality, P(Λ ever reaches 1/α) ≤ α, however often and whenever it
 * is looked at. Hence the always-valid p-value min(1, 1/Λ) and the confidence sequence
 * {Δ0 : Λ(Δ0) < 1/α}, whose half-width is below. The guarantee rests on the normal approximation
 * of Δ̂ (a sum of many independent observations) and on V being known; V is estimated from the
 * data (a plug-in), which is asymptotically right and why a minimum sample is asked for.
 */

export interface SequentialTest {
  /** The mixture likelihood ratio against no difference. */
  lambda: number;
  /** min(1, 1/Λ): below α exactly when the confidence sequence excludes 0. */
  pValue: number;
  /** The always-valid confidence sequence for the difference at this look. */
  low: number;
  high: number;
}

/**
 * The test of a difference `estimate` with variance `variance` (> 0) under a mixing variance
 * `tauSquared` (> 0) at level `alpha`. Never throws; a variance of 0 or less gives no evidence
 * (Λ = 1) and an infinite interval.
 */
export function mixtureSprt(estimate: number, variance: number, tauSquared: number, alpha: number): SequentialTest {
  if (!(variance > 0) || !(tauSquared > 0) || !Number.isFinite(estimate)) return { lambda: 1, pValue: 1, low: -Infinity, high: Infinity };
  const total = variance + tauSquared;
  const logLambda = 0.5 * Math.log(variance / total) + (tauSquared * estimate * estimate) / (2 * variance * total);
  const lambda = Math.exp(logLambda);
  const halfWidth = Math.sqrt(((2 * variance * total) / tauSquared) * (Math.log(1 / alpha) + 0.5 * Math.log(total / variance)));
  return { lambda, pValue: Math.min(1, Math.exp(-logLambda)), low: estimate - halfWidth, high: estimate + halfWidth };
}

/**
 * The standard normal quantile Φ⁻¹(p), by Acklam's rational approximation (relative error below
 * 1.2e-9 on (0, 1)). p outside (0, 1) gives ±Infinity.
 */
export function normalQuantile(p: number): number {
  if (p <= 0) return -Infinity;
  if (p >= 1) return Infinity;
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  if (p > 1 - low) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}
