import { chargeTokens, takeToken, type BucketState } from './token-bucket';

describe('takeToken (token bucket)', () => {
  const limit = { ratePerSecond: 10, burst: 3 };
  it('allows a burst, refuses the next with the wait for one token, refills by elapsed time', () => {
    let s: BucketState | undefined;
    const at = (ms: number) => {
      const r = takeToken(s, limit, ms);
      s = r.state;
      return r.answer;
    };
    expect([at(0), at(0), at(0)].map((a) => [a.allowed, a.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
    ]);
    const refused = at(0);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 100 });
    expect(refused.fullInMs).toBe(300);
    expect(at(50).allowed).toBe(false); // half a token
    expect(at(100)).toMatchObject({ allowed: true, remaining: 0 });
    // A long pause refills to the burst, never above it.
    expect(at(60_000)).toMatchObject({ allowed: true, remaining: 2 });
  });
});

describe('chargeTokens (work charged after it is done)', () => {
  const limit = { ratePerSecond: 10, burst: 3 };
  it('takes the cost below zero; requests wait until the debt is refilled', () => {
    const taken = takeToken(undefined, limit, 0).state; // 2 left
    const charged = chargeTokens(taken, limit, 0, 12); // 2 - 12 = -10
    expect(charged.tokens).toBe(-10);
    const refused = takeToken(charged, limit, 0);
    expect(refused.answer).toMatchObject({ allowed: false, retryAfterMs: 1100 });
    expect(takeToken(charged, limit, 1099).answer.allowed).toBe(false);
    expect(takeToken(charged, limit, 1100).answer.allowed).toBe(true);
  });
  it('refills first, never above the burst; an unseen tenant starts full', () => {
    expect(chargeTokens(undefined, limit, 0, 1).tokens).toBe(2);
    expect(chargeTokens({ tokens: 0, atMs: 0 }, limit, 60_000, 1).tokens).toBe(2);
  });
});
