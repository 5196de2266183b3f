import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exchange, msg, text, toolResult, toolUse, user } from './support/api';
import { ADMIN_KEY } from './support/harness';
import { type ServerProcess, spawnServer } from './support/server-process';

/**
 * Invariant 2 with an open turn: the server process is killed (SIGKILL) while a draft (a run
 * paused for approval) is saved, and a new process starts on the same data directory. The draft
 * is back byte for byte, the history is the previous turn only, and the draft commits.
 */
describe('a draft across kill -9 and a new process', () => {
  let dataDir: string;
  let server: ServerProcess | null = null;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-drafts-'));
  });
  afterAll(async () => {
    await server?.kill();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('the draft is back, the history is the previous turn, and the draft commits', async () => {
    server = await spawnServer(dataDir);
    const tenant = await server.call('POST', '/v1/tenants', ADMIN_KEY, { name: 'drafts' });
    expect(tenant.status).toBe(201);
    const key = tenant.body?.apiKey as string;
    const call = async (method: string, route: string, body: unknown, status: number) => {
      const r = await (server as ServerProcess).call(method, route, key, body);
      expect({ route, status: r.status }).toEqual({ route, status });
      return r.body as Record<string, unknown>;
    };
    const conv = '/v1/conversations/paused';
    await call('POST', '/v1/conversations', { id: 'paused' }, 201);
    const t1 = await call('POST', `${conv}/turns`, { messages: exchange('1') }, 201);
    const paused = [user('delete the file?'), msg('assistant', [text('may I?'), toolUse('rm_1')])];
    const saved = await call('PUT', `${conv}/draft`, { messages: paused, parentId: t1.tip }, 200);
    const draftBefore = await call('GET', `${conv}/draft`, undefined, 200);
    const history = await call('GET', `${conv}/messages`, undefined, 200);

    await server.kill();
    server = await spawnServer(dataDir);

    expect(await call('GET', `${conv}/draft`, undefined, 200)).toEqual(draftBefore);
    expect(draftBefore).toMatchObject({ draftId: saved.draftId, parentId: t1.tip });
    expect(draftBefore.messages).toEqual(paused);
    const after = await call('GET', `${conv}/messages`, undefined, 200);
    expect(after).toEqual(history);
    expect((after.items as { id: string }[]).map((m) => m.id)).toEqual(t1.messageIds);
    expect((await call('GET', conv, undefined, 200)).tip).toBe(t1.tip);
    const context = await call(
      'POST',
      `${conv}/context`,
      { provider: 'anthropic', model: 'claude-sonnet-4-5', budgetTokens: 20_000 },
      200,
    );
    expect(JSON.stringify(context.body)).not.toContain('delete the file?');

    const committed = await call(
      'POST',
      `${conv}/draft/commit`,
      { turnId: 'approved', messages: [msg('user', [toolResult('rm_1', 'deleted')])] },
      201,
    );
    expect(committed.messageIds).toHaveLength(3);
    await call('GET', `${conv}/draft`, undefined, 404);
    const branch = await call('GET', `${conv}/messages`, undefined, 200);
    expect((branch.items as { id: string }[]).map((m) => m.id)).toEqual([
      ...(t1.messageIds as string[]),
      ...(committed.messageIds as string[]),
    ]);
  });
});
