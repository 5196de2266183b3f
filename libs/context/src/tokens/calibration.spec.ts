import fc from 'fast-check';
import { calibrate, calibrationFactor, DEFAULT_CALIBRATION } from './calibration';

/** A provider that counts `ratio` times what we estimate, with ±noise. */
function provider(ratio: number, noise: number, seed: number) {
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  return (estimated: number) => Math.round(estimated * ratio * (1 + (random() * 2 - 1) * noise));
}

describe('calibrationFactor', () => {
  it('is 1 without evidence', () => {
    expect(calibrationFactor([])).toBe(1);
    expect(calibrationFactor([{ estimated: 0, measured: 100 }])).toBe(1);
    expect(calibrationFactor([{ estimated: 100, measured: Number.NaN }])).toBe(1);
  });

  it('converges on the ratio the provider counts', () => {
    const measure = provider(1.3, 0.05, 42);
    const samples = Array.from({ length: 40 }, (_, i) => {
      const estimated = 10_000 + i * 500;
      return { estimated, measured: measure(estimated) };
    });
    const errorAfter = (n: number) => Math.abs(calibrationFactor(samples.slice(0, n)) - 1.3);
    expect(errorAfter(1)).toBeGreaterThan(errorAfter(40));
    expect(errorAfter(40)).toBeLessThan(0.03);
  });

  it('follows a change in what the provider counts, through recency weight', () => {
    const before = provider(1.4, 0, 1);
    const after = provider(1.1, 0, 2);
    const samples = [
      ...Array.from({ length: 30 }, () => ({ estimated: 1000, measured: before(1000) })),
      ...Array.from({ length: 30 }, () => ({ estimated: 1000, measured: after(1000) })),
    ];
    expect(calibrationFactor(samples.slice(0, 30))).toBeCloseTo(1.4, 1);
    expect(calibrationFactor(samples)).toBeCloseTo(1.1, 1);
  });

  it('bounds the pull of one absurd pair', () => {
    const steady = Array.from({ length: 20 }, () => ({ estimated: 1000, measured: 1000 }));
    const factor = calibrationFactor([...steady, { estimated: 10, measured: 1_000_000 }]);
    expect(factor).toBeGreaterThan(1);
    expect(factor).toBeLessThan(1.25);
  });

  it('always stays within its bounds', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            estimated: fc.double({ min: -10, max: 1e7, noNaN: false }),
            measured: fc.double({ min: -10, max: 1e7, noNaN: false }),
          }),
        ),
        (samples) => {
          const f = calibrationFactor(samples);
          return f >= DEFAULT_CALIBRATION.minFactor && f <= DEFAULT_CALIBRATION.maxFactor;
        },
      ),
    );
  });
});

describe('calibrate', () => {
  it('rounds up', () => {
    expect(calibrate(1000, 1.2345)).toBe(1235);
    expect(calibrate(0, 2)).toBe(0);
  });
});
