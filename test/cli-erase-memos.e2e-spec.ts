/**
 * `arbor erase` and the idempotency memos: a stored answer names the erased conversation (and may
 * quote it), so the CLI's erasure forgets the tenant's memos as the HTTP route does — the same
 * command, whichever edge dispatches it.
 */
import { IdempotencyStore } from '@arbor/tenancy/sqlite/idempotency-store';
import { eraseCommand } from '../apps/cli/src/erase';
import { type Harness, startHarness } from './support/harness';

const TTL_MS = 24 * 3600_000;

describe('arbor erase forgets the idempotency memos of the tenant', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });

  afterAll(async () => {
    await h.destroy();
  });

  it('a retried start after `arbor erase` is not answered from the memo', async () => {
    const t = await h.createTenant('memos');
    const other = await h.createTenant('bystander');
    const start = (key: string, id: string) =>
      h.call('POST', '/v1/conversations', {
        key,
        body: { id, title: 'to be erased' },
        headers: { 'idempotency-key': 'start-1' },
        check: false,
      });
    expect((await start(t.apiKey, 'c-memo')).status).toBe(201);
    expect((await start(other.apiKey, 'c-kept')).status).toBe(201);
    const replay = await start(t.apiKey, 'c-memo');
    expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    await h.stop();

    const before = new IdempotencyStore(h.dataDir, TTL_MS, 'NORMAL');
    expect(before.get(t.id, 'start-1')?.body).toContain('c-memo');
    before.close();

    const out: string[] = [];
    const code = await eraseCommand(['c-memo', '--tenant', t.id, '--data-dir', h.dataDir], (s) =>
      out.push(s),
    );
    expect([code, out.join('')]).toEqual([0, expect.stringContaining('erased c-memo')]);

    const after = new IdempotencyStore(h.dataDir, TTL_MS, 'NORMAL');
    try {
      expect(after.get(t.id, 'start-1')).toBeUndefined();
      // Another tenant's memos stay.
      expect(after.get(other.id, 'start-1')?.body).toContain('c-kept');
    } finally {
      after.close();
    }

    await h.restart();
    const retry = await start(t.apiKey, 'c-memo');
    // Run again, not replayed: the id is erased.
    expect([retry.status, retry.body.code, retry.headers.get('idempotent-replayed')]).toEqual([
      410,
      'conversation_erased',
      null,
    ]);
    const kept = await start(other.apiKey, 'c-kept');
    expect([kept.status, kept.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
  }, 120_000);
});
