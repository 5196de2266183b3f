/**
 * @arbor/client against the real app with a tenant rate limit (1 request/s, burst 1): a
 * `429 rate_limited` is waited out (its `Retry-After`, bounded) for the calls that are safe to
 * send again, and answered at once for the others.
 */
import { type Harness, startHarness } from '../../../test/support/harness';
import { ArborClient, isProblem, type MessageInput } from '../src';

const user = (text: string): MessageInput => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): MessageInput => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
});

describe('@arbor/client under a tenant rate limit', () => {
  let h: Harness;
  let apiKey: string;
  let conversation: string;
  beforeAll(async () => {
    h = await startHarness({ ARBOR_RATE_LIMIT_RPS: '1', ARBOR_RATE_LIMIT_BURST: '1' });
    apiKey = (await h.createTenant('rate-limited')).apiKey;
    conversation = (
      await new ArborClient({ baseUrl: h.baseUrl, apiKey }).startConversation({ id: 'rl-1' })
    ).id;
  });
  afterAll(() => h.destroy());

  const client = (extra: Partial<ConstructorParameters<typeof ArborClient>[0]> = {}) =>
    new ArborClient({ baseUrl: h.baseUrl, apiKey, ...extra });

  it('waits out Retry-After for a burst of GETs and idempotent commits', async () => {
    const c = client();
    const gets = await Promise.all(
      Array.from({ length: 4 }, () => c.getConversation(conversation)),
    );
    expect(gets.map((g) => g.id)).toEqual(Array(4).fill(conversation));
    // Commits carry a turnId: a refused one is sent again and stored once.
    await Promise.all(
      ['a', 'b'].map((x) =>
        c.commitTurn(conversation, { turnId: `turn-${x}`, messages: [user(x), assistant(x)] }),
      ),
    );
    expect((await c.getConversation(conversation)).counts.turns).toBe(2);
    // A POST with an Idempotency-Key is safe to send again too.
    const started = await Promise.all(
      ['k1', 'k2'].map((k) =>
        c.call('startConversation', { body: {}, headers: { 'Idempotency-Key': k } }),
      ),
    );
    expect(new Set(started.map((s) => s.id)).size).toBe(2);
  }, 60_000);

  it('answers 429 at once for a POST that is not idempotent', async () => {
    const c = client();
    const results = await Promise.allSettled([c.startConversation(), c.startConversation()]);
    const refused = results.filter(
      (r) => r.status === 'rejected' && isProblem(r.reason, 'rate_limited'),
    );
    expect(refused.length).toBeGreaterThanOrEqual(1);
  });

  it('gives up when Retry-After is longer than the bound', async () => {
    const c = client({ maxRateLimitWaitMs: 0 });
    const results = await Promise.allSettled([
      c.getConversation(conversation),
      c.getConversation(conversation),
    ]);
    const refused = results.filter(
      (r) => r.status === 'rejected' && isProblem(r.reason, 'rate_limited'),
    );
    expect(refused.length).toBeGreaterThanOrEqual(1);
    if (refused[0].status === 'rejected' && isProblem(refused[0].reason, 'rate_limited')) {
      const seconds: number = refused[0].reason.problem.retryAfterSeconds; // typed per code
      expect(seconds).toBeGreaterThanOrEqual(1);
    }
  });
});
