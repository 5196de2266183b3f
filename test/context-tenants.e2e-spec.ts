/**
 * Conversation ids (and message ids) are chosen by the client, so two tenants can both have a
 * conversation "shared" with a message "m1" of different content. The context service keeps one
 * measurement cache for everyone: each tenant must be measured on its own messages.
 */
import { checkBody } from '@arbor/context';
import { assistant, clientFor, user } from './support/api';
import { type Harness, startHarness } from './support/harness';

describe('context caches across tenants with the same ids', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.destroy();
  });

  it("measures each tenant's own messages, not the other's under the same ids", async () => {
    const a = clientFor(h, (await h.createTenant('a')).apiKey);
    const b = clientFor(h, (await h.createTenant('b')).apiKey);
    const long = 'A much longer question that goes on and on about the parser. '.repeat(200);
    for (const [api, question] of [
      [a, 'Short question?'],
      [b, long],
    ] as const) {
      expect(await api.start({ id: 'shared', title: 't' })).toBe('shared');
      await api.turn('shared', null, [user(question, 'm1'), assistant('Answer.', 'm2')]);
    }
    const ask = (api: typeof a) =>
      api.post(api.conv('shared', '/context'), {
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        budgetTokens: 200_000,
      });
    const first = await ask(a);
    const second = await ask(b);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(JSON.stringify(second.body.body)).toContain('goes on and on about the parser');
    expect(checkBody('anthropic', second.body.body)).toEqual([]);
    // B's 200 repetitions weigh thousands of tokens more than A's three words.
    expect(second.body.receipt.rawTokens).toBeGreaterThan(first.body.receipt.rawTokens + 1000);
    expect(second.body.receipt.prefixHash).not.toBe(first.body.receipt.prefixHash);

    // The same numbers as a server that never saw tenant A.
    await h.restart();
    const fresh = await ask(b);
    expect(fresh.body.receipt.rawTokens).toBe(second.body.receipt.rawTokens);
    expect(fresh.body.receipt.prefixHash).toBe(second.body.receipt.prefixHash);
  });
});
