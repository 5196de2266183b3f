/**
 * Calibration: how much to multiply our estimates by so they match what the provider counts.
 * Input: recorded pairs (our estimate for a request, the provider's measured input tokens for it),
 * oldest first. Output: a correction factor.
 *
 * Robust by construction:
 * - each pair contributes its log ratio ln(measured / estimated), clamped to [minFactor,
 *   maxFactor] first, so one absurd pair (a cached-token accounting glitch, a wrong pairing)
 *   moves the result by a bounded amount;
 * - pairs are weighted by recency with a half-life counted in pairs, so a model or tokenizer
 *   change is followed within a few calls;
 * - a prior of 1 with `priorWeight` keeps the factor near 1 until evidence accumulates;
 * - the result is clamped to [minFactor, maxFactor].
 * A weighted mean of log ratios is a geometric mean: over- and under-counts by the same ratio
 * cancel, which an arithmetic mean of ratios would not do.
 */

export interface CalibrationSample {
  estimated: number;
  measured: number;
}

export interface CalibrationOptions {
  minFactor: number;
  maxFactor: number;
  /** Pairs after which a pair's weight has halved. */
  halfLife: number;
  /** Weight of the prior factor 1, in pairs. */
  priorWeight: number;
}

export const DEFAULT_CALIBRATION: CalibrationOptions = {
  minFactor: 0.5,
  maxFactor: 2,
  halfLife: 8,
  priorWeight: 1,
};

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

function usable(sample: CalibrationSample): boolean {
  return (
    Number.isFinite(sample.estimated) &&
    Number.isFinite(sample.measured) &&
    sample.estimated > 0 &&
    sample.measured > 0
  );
}

/** The correction factor for a history of (estimated, measured) pairs, oldest first. */
export function calibrationFactor(
  samples: readonly CalibrationSample[],
  options: Partial<CalibrationOptions> = {},
): number {
  const o = { ...DEFAULT_CALIBRATION, ...options };
  const lo = Math.log(o.minFactor);
  const hi = Math.log(o.maxFactor);
  const valid = samples.filter(usable);
  let weighted = 0; // the prior contributes log(1) = 0
  let total = o.priorWeight;
  valid.forEach((sample, index) => {
    const age = valid.length - 1 - index;
    const weight = Math.pow(0.5, age / o.halfLife);
    weighted += weight * clamp(Math.log(sample.measured / sample.estimated), lo, hi);
    total += weight;
  });
  return total > 0 ? clamp(Math.exp(weighted / total), o.minFactor, o.maxFactor) : 1;
}

/** An estimate corrected by a calibration factor (rounded up: undercounting is what hurts). */
export function calibrate(estimated: number, factor: number): number {
  return Math.ceil(estimated * factor);
}
