// A recency-weighted geometric mean of clamped log ratios with a prior of 1: bounded per absurd
// pair, and over- and under-counts by the same ratio cancel (README.md).

export interface CalibrationSample {
  estimated: number;
  measured: number;
}

export interface CalibrationOptions {
  minFactor: number;
  maxFactor: number;
  halfLife: number;
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
