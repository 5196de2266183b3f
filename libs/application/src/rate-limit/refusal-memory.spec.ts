import fc from 'fast-check';
import { RefusalMemory } from './refusal-memory';
import { type BucketLimit, type BucketState, takeToken } from './token-bucket';

/**
 * The bucket (what Redis computes) behind the refusal memory, as RateLimiterService uses them: a
 * request is sent at local time `t`; the memory may refuse it at once; else the bucket decides
 * `latency` ms later (a Redis round trip), and a refusal is remembered from `t`.
 */
type Step =
  | { kind: 'wait'; ms: number }
  | { kind: 'request'; latency: number }
  | { kind: 'limit'; limit: BucketLimit };

// Mostly token intervals of 1–50 ms and small bursts, so that short sequences empty the bucket
// and send requests on every ms around a token's return; sometimes anything.
const rateArb = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 20, max: 1000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 2000 }) },
);
const burstArb = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 5 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 50 }) },
);
const limitArb = fc.record({ ratePerSecond: rateArb, burst: burstArb });
const stepArb = (maxLatency: number): fc.Arbitrary<Step> =>
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('wait' as const),
        // Mostly a ms or two (requests land on every ms around a token's return), some long.
        ms: fc.oneof({ weight: 4, arbitrary: fc.nat(2) }, { weight: 1, arbitrary: fc.nat(400) }),
      }),
    },
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant('request' as const),
        latency: fc.oneof(
          { weight: 3, arbitrary: fc.nat(Math.min(1, maxLatency)) },
          { weight: 1, arbitrary: fc.nat(maxLatency) },
        ),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('limit' as const), limit: limitArb }) },
  );

interface Run {
  /** Per request: admitted, and whether the memory decided it (no bucket call). */
  decisions: { allowed: boolean; local: boolean; at: number }[];
  /** Local refusals made while the bucket held a whole token. */
  wrongRefusals: number;
}

const run = (first: BucketLimit, steps: Step[], withMemory: boolean): Run => {
  const memory = new RefusalMemory();
  let limit = first;
  let bucket: BucketState | undefined;
  let now = 0;
  const decisions: Run['decisions'] = [];
  let wrongRefusals = 0;
  for (const step of steps) {
    if (step.kind === 'wait') now += step.ms;
    else if (step.kind === 'limit') limit = step.limit;
    else {
      const sentAt = now;
      const known = withMemory ? memory.refused('t', limit, sentAt) : null;
      if (known !== null) {
        // Would the bucket have held a whole token at this moment? (Peek: a refusal changes
        // nothing in a token bucket, so the state is not kept.)
        if (takeToken(bucket, limit, sentAt).answer.allowed) wrongRefusals++;
        expect(known.retryAfterMs).toBeGreaterThan(0);
        decisions.push({ allowed: false, local: true, at: sentAt });
        continue;
      }
      now += step.latency;
      const r = takeToken(bucket, limit, now);
      bucket = r.state;
      if (!r.answer.allowed) memory.remember('t', limit, sentAt, r.state.tokens);
      decisions.push({ allowed: r.answer.allowed, local: false, at: now });
    }
  }
  return { decisions, wrongRefusals };
};

describe('RefusalMemory (in front of a token bucket)', () => {
  it('with no round-trip latency, changes no decision: the same requests are admitted as by the bucket alone', () => {
    fc.assert(
      fc.property(limitArb, fc.array(stepArb(0), { maxLength: 200 }), (limit, steps) => {
        const withMemory = run(limit, steps, true);
        const bare = run(limit, steps, false);
        expect(withMemory.decisions.map((d) => d.allowed)).toEqual(
          bare.decisions.map((d) => d.allowed),
        );
      }),
      { numRuns: 100 },
    );
  });

  it('never refuses while the bucket holds a token, and never admits more than the bucket allows, over any sequence and latencies', () => {
    fc.assert(
      fc.property(
        rateArb,
        burstArb,
        fc.array(stepArb(30), { maxLength: 200 }),
        (ratePerSecond, burst, raw) => {
          // One limit throughout, so the allowance bound below is the bucket's.
          const steps = raw.filter((s) => s.kind !== 'limit');
          const limit = { ratePerSecond, burst };
          const r = run(limit, steps, true);
          expect(r.wrongRefusals).toBe(0);
          // Over every window [a, b] of admissions: at most burst + rate × (b - a) admitted.
          const admitted = r.decisions.filter((d) => d.allowed).map((d) => d.at);
          for (let i = 0; i < admitted.length; i++) {
            for (let j = i; j < admitted.length; j++) {
              const allowance = burst + (ratePerSecond * (admitted[j] - admitted[i])) / 1000;
              expect(j - i + 1).toBeLessThanOrEqual(allowance + 1e-9);
            }
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('refuses locally only until the bucket can hold a token; a changed limit or a clock that went back drops the entry', () => {
    const limit = { ratePerSecond: 10, burst: 5 };
    const m = new RefusalMemory();
    // Refused at 1,000 holding 0.25 tokens: 75 ms until a whole token.
    m.remember('t', limit, 1000, 0.25);
    expect(m.refused('t', limit, 1000)).toEqual({
      allowed: false,
      remaining: 0,
      retryAfterMs: 75,
      fullInMs: 475,
    });
    expect(m.refused('t', limit, 1074)?.retryAfterMs).toBe(1);
    expect(m.refused('t', limit, 1075)).toBeNull();
    expect(m.refused('t', limit, 1076)).toBeNull();
    m.remember('t', limit, 2000, 0);
    expect(m.refused('other', limit, 2000)).toBeNull();
    expect(m.refused('t', { ratePerSecond: 20, burst: 5 }, 2001)).toBeNull();
    expect(m.refused('t', limit, 2001)).toBeNull(); // dropped with the limit change
    m.remember('t', limit, 3000, 0);
    expect(m.refused('t', limit, 2999)).toBeNull(); // clock went back
  });

  it('the memory decides every refusal of a steady flood but the first of each token interval', () => {
    // 1,000 requests in 1 s (one per ms) against 50/s, no latency: the bucket is asked for the
    // burst, then a few times per token interval of 20 ms (the first refusal; the rounding down to
    // whole ms can cost one or two more asks at its end), not 1,000 times.
    const limit = { ratePerSecond: 50, burst: 50 };
    const steps: Step[] = [];
    for (let i = 0; i < 1000; i++)
      steps.push({ kind: 'request', latency: 0 }, { kind: 'wait', ms: 1 });
    const r = run(limit, steps, true);
    const asked = r.decisions.filter((d) => !d.local).length;
    expect(r.decisions.filter((d) => d.allowed).length).toBe(50 + 49);
    expect(asked).toBeLessThanOrEqual(50 + 4 * 50);
  });
});
