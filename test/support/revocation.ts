/**
 * A revoked key hears nothing, an erased tenant neither: live streams opened on `readBase` with a
 * key are closed when the key is revoked (or the tenant erased) through `writeBase`. The same
 * walk serves the embedded shape (one server for both) and the scaled one (two replicas).
 */
import { randomBytes } from 'node:crypto';
import { callerFor } from './erasure';
import { ADMIN_KEY } from './harness';
import { openSse, type SseClient } from './sse';

const turn = (text: string) => ({
  messages: [
    { role: 'user', content: [{ type: 'text', text }] },
    { role: 'assistant', content: [{ type: 'text', text: `re: ${text}` }] },
  ],
});

/** Rejects when `promise` has not settled within `ms` (a stream that keeps listening). */
const within = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([
    promise,
    new Promise<T>((_, reject) =>
      setTimeout(() => reject(new Error(`${what}: still open after ${ms} ms`)), ms).unref(),
    ),
  ]);

const hasText = (s: SseClient, text: string) =>
  s
    .next((f) => f.data !== undefined && f.data.includes(text), 200)
    .then(
      () => true,
      () => false,
    );

export async function revokedKeysHearNothing(writeBase: string, readBase: string): Promise<void> {
  const write = callerFor(writeBase);
  const tenant = await write('POST', '/v1/tenants', { key: ADMIN_KEY, body: { name: 'streams' } });
  expect(tenant.status).toBe(201);
  const tenantId = tenant.body.id as string;
  const kept = tenant.body.apiKey as string;
  const issued = await write('POST', `/v1/tenants/${tenantId}/keys`, { key: ADMIN_KEY, body: {} });
  expect(issued.status).toBe(201);
  const goneKey = issued.body.apiKey as string;
  const started = await write('POST', '/v1/conversations', { key: kept, body: {} });
  const conv = `/v1/conversations/${started.body.id as string}`;
  const open: SseClient[] = [];
  const listen = async (key: string) => {
    let s: SseClient | null = null;
    // The reading replica may not know a key issued through the other one for a moment.
    for (let i = 0; i < 50 && (s === null || s.status !== 200); i++) {
      if (s !== null) await new Promise((r) => setTimeout(r, 100));
      s = await openSse(readBase, `${conv}/stream`, key);
    }
    expect(s?.status).toBe(200);
    open.push(s as SseClient);
    return s as SseClient;
  };
  try {
    const revoked = await listen(goneKey);
    const keeps = await listen(kept);
    const first = `before-${randomBytes(4).toString('hex')}`;
    expect((await write('POST', `${conv}/turns`, { key: kept, body: turn(first) })).status).toBe(
      201,
    );
    for (const s of [revoked, keeps])
      expect(await within(hasText(s, first), 10_000, 'first')).toBe(true);

    const keyId = issued.body.keyId as string;
    const del = await write('DELETE', `/v1/tenants/${tenantId}/keys/${keyId}`, { key: ADMIN_KEY });
    expect(del.status).toBe(204);
    await within(revoked.ended, 10_000, 'the revoked key’s stream');
    const after = `after-${randomBytes(4).toString('hex')}`;
    expect((await write('POST', `${conv}/turns`, { key: kept, body: turn(after) })).status).toBe(
      201,
    );
    expect(await within(hasText(keeps, after), 10_000, 'the kept key’s stream')).toBe(true);
    expect(await hasText(revoked, after)).toBe(false);
    // Reopened with the revoked key: refused.
    expect((await openSse(readBase, `${conv}/stream`, goneKey)).status).toBe(401);

    // The tenant erased: every stream of its keys ends.
    const second = await listen(kept);
    const erased = await write('DELETE', `/v1/tenants/${tenantId}`, { key: ADMIN_KEY });
    expect(erased.status).toBe(200);
    await within(keeps.ended, 10_000, 'a stream of the erased tenant');
    await within(second.ended, 10_000, 'another stream of the erased tenant');
  } finally {
    for (const s of open) s.close();
  }
}
