import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_KEY } from './support/harness';
import { type ServerProcess, spawnServer } from './support/server-process';
import { httpCall } from './support/http';

/**
 * Two real server processes on one data dir: an Idempotency-Key runs once across both. The first
 * claimant runs it; the other answers the stored answer or `409 idempotency_in_progress`, never a
 * second conversation.
 */
describe('Idempotency-Key across two processes sharing the data dir', () => {
  const KEYS = 20;
  let dataDir: string;
  let a: ServerProcess;
  let b: ServerProcess;
  let apiKey: string;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-idem-'));
    const first = await spawnServer(dataDir);
    const t = await first.call('POST', '/v1/tenants', ADMIN_KEY, { name: 'idem' });
    expect(t.status).toBe(201);
    apiKey = (t.body as { apiKey: string }).apiKey;
    await first.kill();
    // Both load the tenant directory from the log at start.
    [a, b] = await Promise.all([spawnServer(dataDir), spawnServer(dataDir)]);
  }, 180_000);
  afterAll(async () => {
    await Promise.all([a?.kill(), b?.kill()]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const post = async (s: ServerProcess, key: string, body: unknown) => {
    const res = await httpCall(s.url, 'POST', '/v1/conversations', {
      key: apiKey,
      body,
      headers: { 'idempotency-key': key },
      check: false,
    });
    return {
      status: res.status,
      replayed: res.headers.get('idempotent-replayed') === 'true',
      type: res.headers.get('content-type') ?? '',
      body: res.body as { id?: string; code?: string },
    };
  };

  it('the same key sent to both at once makes one conversation', async () => {
    const runs = await Promise.all(
      Array.from({ length: KEYS }, async (_, i) => {
        const key = `k-${i}-${Date.now()}`;
        const body = { title: `t${i}` };
        const answers = await Promise.all([post(a, key, body), post(b, key, body)]);
        return { key, body, answers };
      }),
    );
    let inProgress = 0;
    for (const { answers } of runs) {
      for (const r of answers) {
        expect([201, 409]).toContain(r.status);
        if (r.status === 409) {
          inProgress++;
          expect(r.type).toContain('application/problem+json');
          expect(r.body.code).toBe('idempotency_in_progress');
        }
      }
      const created = answers.filter((r) => r.status === 201);
      expect(created.filter((r) => !r.replayed)).toHaveLength(1);
      expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    }
    // Once the first is answered, a retry at either process is the first answer again.
    for (const { key, body, answers } of runs) {
      const id = answers.find((r) => r.status === 201 && !r.replayed)!.body.id;
      for (const s of [a, b]) {
        const again = await post(s, key, body);
        expect(again.status).toBe(201);
        expect(again.replayed).toBe(true);
        expect(again.body.id).toBe(id);
      }
      // Another body with the key is refused at either process.
      expect((await post(b, key, { title: 'other' })).body.code).toBe('idempotency_key_reused');
    }
    console.log(
      `idempotency across processes: ${KEYS} keys, ${inProgress} answered 409 idempotency_in_progress`,
    );
  }, 120_000);
});
