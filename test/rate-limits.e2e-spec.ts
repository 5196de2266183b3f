import { clientFor } from './support/api';
import { ADMIN_KEY, type Harness, startHarness } from './support/harness';
import { describeWithRedis, randomPrefix, TEST_REDIS_URL } from '@arbor/projections/testing/redis';

const p99 = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))];
};

const suite = (label: string, env: () => Record<string, string>) => {
  describe(`per-tenant rate limits (${label})`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness(env());
    });
    afterAll(async () => {
      await h.destroy();
    });

    it('refuses over the bucket with 429 rate_limited, Retry-After and RateLimit headers', async () => {
      const t = await h.createTenant('small');
      const admin = clientFor(h, ADMIN_KEY);
      const set = await admin.put(`/v1/tenants/${t.id}/limits`, {
        limit: { ratePerSecond: 1, burst: 3 },
      });
      expect(set.body).toEqual({
        limit: { ratePerSecond: 1, burst: 3 },
        effective: { ratePerSecond: 1, burst: 3 },
      });
      const api = clientFor(h, t.apiKey);
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await api.get('/v1/conversations'));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429, 429]);
      expect(answers[0].headers.get('ratelimit-policy')).toBe('"tenant";q=3;w=3');
      expect(answers[0].headers.get('ratelimit')).toMatch(/^"tenant";r=2;t=\d+$/);
      const refused = answers[3];
      expect(refused.body.code).toBe('rate_limited');
      expect(refused.headers.get('content-type')).toMatch(/problem\+json/);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('ratelimit')).toMatch(/^"tenant";r=0;t=\d+$/);
      // Admin calls are never limited; null returns the tenant to the default (unlimited here).
      const back = await admin.put(`/v1/tenants/${t.id}/limits`, { limit: null });
      expect(back.body).toEqual({ limit: null, effective: null });
      expect((await api.get('/v1/conversations')).status).toBe(200);
      expect((await admin.put(`/v1/tenants/nope/limits`, { limit: null })).status).toBe(404);
      expect(
        (await admin.put(`/v1/tenants/${t.id}/limits`, { limit: { ratePerSecond: 0, burst: 1 } }))
          .status,
      ).toBe(400);
    });

    it("one tenant flooding does not reach another tenant's answers (429s for the flooder only)", async () => {
      const admin = clientFor(h, ADMIN_KEY);
      const flooder = await h.createTenant('flooder');
      const victim = await h.createTenant('victim');
      await admin.put(`/v1/tenants/${flooder.id}/limits`, {
        limit: { ratePerSecond: 50, burst: 50 },
      });
      await admin.put(`/v1/tenants/${victim.id}/limits`, {
        limit: { ratePerSecond: 1000, burst: 1000 },
      });
      const v = clientFor(h, victim.apiKey);
      const f = clientFor(h, flooder.apiKey);
      const vid = await v.start();
      // Bounded by count and by time: the server, the flood and the victim share this process's
      // event loop (and CI's two cores with other suites), so a count alone can outlast the test.
      const timeVictim = async (n: number, budgetMs: number) => {
        const ms: number[] = [];
        const statuses = new Map<number, number>();
        const deadline = performance.now() + budgetMs;
        while (ms.length < n && (ms.length < 20 || performance.now() < deadline)) {
          const t0 = performance.now();
          const r = await v.get(v.conv(vid));
          ms.push(performance.now() - t0);
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        }
        return { ms, statuses };
      };
      const baseline = await timeVictim(100, 10_000);
      let stop = false;
      const flood = new Map<number, number>();
      const floodLoops = Array.from({ length: 16 }, async () => {
        while (!stop) {
          const r = await f.get('/v1/conversations');
          flood.set(r.status, (flood.get(r.status) ?? 0) + 1);
        }
      });
      let during: Awaited<ReturnType<typeof timeVictim>>;
      try {
        during = await timeVictim(200, 20_000);
      } finally {
        stop = true;
        await Promise.allSettled(floodLoops);
      }
      console.log(
        `[rate limits, ${label}] victim p99 alone ${p99(baseline.ms).toFixed(2)} ms ` +
          `(${baseline.ms.length} calls), during a 16-client flood ${p99(during.ms).toFixed(2)} ms ` +
          `(${during.ms.length} calls); flooder answers ` +
          JSON.stringify(Object.fromEntries(flood)),
      );
      expect(flood.get(429) ?? 0).toBeGreaterThan(0);
      expect([...during.statuses.keys()]).toEqual([200]);
      expect([...baseline.statuses.keys()]).toEqual([200]);
    }, 120_000);
  });
};

suite('in memory', () => ({}));

describeWithRedis('rate limits in Redis', () => {
  suite('Redis', () => ({ REDIS_URL: TEST_REDIS_URL, ARBOR_REDIS_PREFIX: randomPrefix('rl') }));
});
