import fc from 'fast-check';
import { HOLD_MAX_MS, holdUntil } from './rate-limit-hook';

describe('holdUntil (when a refusal is answered)', () => {
  it('answers within [now + min(retry, max), now + max], never later than the cap', () => {
    fc.assert(
      fc.property(
        fc.nat(10_000_000),
        fc.nat(10_000),
        fc.nat(100_000),
        fc.double({ min: 0.001, max: 1_000_000, noNaN: true }),
        (now, back, retryAfterMs, intervalMs) => {
          const previousAt = Math.max(0, now - back);
          const at = holdUntil(previousAt, now, retryAfterMs, intervalMs);
          expect(at).toBeLessThanOrEqual(now + HOLD_MAX_MS);
          expect(at).toBeGreaterThanOrEqual(now + Math.min(retryAfterMs, HOLD_MAX_MS));
        },
      ),
    );
  });

  it("spaces one tenant's refusals by its token interval while under the cap", () => {
    // 16 connections refused at the same instant, 50 tokens/s (20 ms apart), next token in 5 ms.
    let previous = 0;
    const ats: number[] = [];
    for (let i = 0; i < 16; i++) {
      previous = holdUntil(previous, 1_000, 5, 20);
      ats.push(previous - 1_000);
    }
    expect(ats).toEqual([5, 25, 45, 65, 85, 105, 125, 145, 165, 185, 205, 225, 245, 250, 250, 250]);
  });

  it('answers at the next token when the tenant has no refusal held', () => {
    expect(holdUntil(0, 10_000, 12, 20)).toBe(10_012);
    // A long-ago refusal does not delay this one.
    expect(holdUntil(9_000, 10_000, 12, 20)).toBe(10_012);
  });
});
