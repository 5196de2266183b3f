import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exchange } from './support/api';
import { ADMIN_KEY } from './support/harness';
import { type ServerProcess, spawnServer } from './support/server-process';

const failedInput = { messages: [{ role: 'user', content: [{ type: 'text', text: 'go on' }] }] };
const failedError = { type: 'overloaded_error', status: 529, message: 'Overloaded' };

/**
 * invariant 10 across a real restart: the server process is killed (SIGKILL) and a new process is
 * started on the same files. test/failures.e2e-spec.ts restarts the app inside the jest process,
 * where anything kept in module state survives its "restart"; here nothing does, so a pending
 * failure answered from memory instead of from what was persisted is caught.
 */
describe('failed turns across a process restart', () => {
  let dataDir: string;
  let server: ServerProcess | null = null;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-failures-'));
  });
  afterAll(async () => {
    await server?.kill();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('after kill -9 and a new process, "nothing to retry" and "nothing loaded" are still different answers', async () => {
    server = await spawnServer(dataDir);
    const tenant = await server.call('POST', '/v1/tenants', ADMIN_KEY, { name: 'failures' });
    expect(tenant.status).toBe(201);
    const key = tenant.body?.apiKey as string;
    const ok = async (method: string, route: string, body: unknown, status: number) => {
      const r = await (server as ServerProcess).call(method, route, key, body);
      expect({ route, status: r.status }).toEqual({ route, status });
      return r.body as Record<string, unknown>;
    };
    const start = async (id: string) => {
      await ok('POST', '/v1/conversations', { id }, 201);
      return (await ok('POST', `/v1/conversations/${id}/turns`, { messages: exchange(id) }, 201))
        .tip as string;
    };
    // A pending failure; none ever; one cleared by a later committed turn.
    await start('failed');
    const failure = await ok(
      'POST',
      '/v1/conversations/failed/failures',
      { input: failedInput, error: failedError },
      201,
    );
    await start('clean');
    const tip = await start('cleared');
    await ok('POST', '/v1/conversations/cleared/failures', { input: 'x', error: 'y' }, 201);
    await ok(
      'POST',
      '/v1/conversations/cleared/turns',
      { parentId: tip, messages: exchange('after') },
      201,
    );
    const before = await ok('GET', '/v1/conversations/failed/retry', undefined, 200);
    expect(before).toEqual({
      failureId: failure.failureId,
      input: failedInput,
      error: failedError,
    });

    await server.kill();
    server = await spawnServer(dataDir);

    expect(await ok('GET', '/v1/conversations/failed/retry', undefined, 200)).toEqual(before);
    for (const [id, code] of [
      ['clean', 'nothing_to_retry'],
      ['cleared', 'nothing_to_retry'],
      ['never-existed', 'conversation_not_found'],
    ]) {
      const r = await server.call('GET', `/v1/conversations/${id}/retry`, key);
      expect({ id, status: r.status, code: r.body?.code }).toEqual({ id, status: 404, code });
    }
  });
});
