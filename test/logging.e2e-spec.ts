import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { readConfig } from '@arbor/application';
import { type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../apps/api/src/bootstrap';
import { faultPlan, faultyStoreFactory } from './support/faulty-store';
import { ADMIN_KEY, httpCall } from './support/harness';

type Line = Record<string, unknown>;

/** The real app at LOG_LEVEL=info, its log lines captured, an append that fails on demand. */
describe('the service log: one JSON logger, the request id on every line of a request', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-log-'));
  const plan = faultPlan(0);
  const out = new PassThrough();
  const raw: string[] = [];
  out.on('data', (d: Buffer) => raw.push(...d.toString().split('\n').filter(Boolean)));
  let app: NestFastifyApplication;
  let base = '';
  let key = '';

  beforeAll(async () => {
    const config = readConfig({
      ARBOR_DATA_DIR: dataDir,
      ARBOR_ADMIN_KEY: ADMIN_KEY,
      LOG_LEVEL: 'info',
      ARBOR_SQLITE_SYNCHRONOUS: 'NORMAL',
    });
    app = await createApp(config, faultyStoreFactory(plan), { logDestination: out });
    await app.listen(0, '127.0.0.1');
    const address = app.getHttpServer().address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    base = `http://127.0.0.1:${address.port}`;
    const t = await httpCall(base, 'POST', '/v1/tenants', { key: ADMIN_KEY, body: { name: 'l' } });
    key = (t.body as { apiKey: string }).apiKey;
  });

  afterAll(async () => {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const lines = (): Line[] => raw.map((l) => JSON.parse(l) as Line);

  it('writes JSON only, Nest start-up lines included', () => {
    expect(raw.length).toBeGreaterThan(0);
    for (const l of raw) expect(() => JSON.parse(l) as unknown).not.toThrow();
    expect(lines().some((l) => l.context === 'NestApplication' && l.service === 'arbor')).toBe(
      true,
    );
  });

  it("tags every line of a failing request with its X-Request-Id, a concurrent request's apart", async () => {
    const id = 'log-req-a';
    expect((await httpCall(base, 'PUT', `/v1/conversations/${id}`, { key, body: {} })).status).toBe(
      201,
    );
    plan.failAt = plan.calls + 1;
    const [failed, other] = await Promise.all([
      httpCall(base, 'POST', `/v1/conversations/${id}/turns`, {
        key,
        headers: { 'x-request-id': id },
        body: {
          turnId: 't1',
          messages: [
            { role: 'user', content: [{ type: 'text', text: 'hi' }] },
            { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
          ],
        },
      }),
      httpCall(base, 'GET', '/v1/conversations', { key, headers: { 'x-request-id': 'log-req-b' } }),
    ]);
    expect(failed.status).toBe(503);
    expect(failed.headers.get('x-request-id')).toBe(id);
    expect(other.status).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    const all = lines();
    const errors = all.filter((l) => l.context === 'ProblemFilter');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ requestId: id, level: 50 });
    // Every line that speaks of the failing request names it: its error and its access line.
    const about = all.filter(
      (l) =>
        JSON.stringify(l).includes(`/v1/conversations/${id}/turns`) ||
        (l.route === '/v1/conversations/:id/turns' && l.status === 503),
    );
    expect(about).toHaveLength(2);
    for (const l of about) expect(l.requestId).toBe(id);
    expect(all.filter((l) => l.requestId === id)).toHaveLength(2);
    expect(all.filter((l) => l.requestId === 'log-req-b')).toEqual([
      expect.objectContaining({ msg: 'request', route: '/v1/conversations', status: 200 }),
    ]);
  });
});
