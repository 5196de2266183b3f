import { clientFor, type Client, exchange, problemShape } from './support/api';
import { type Harness, startHarness } from './support/harness';

describe('failures and retry', () => {
  let h: Harness;
  let c: Client;
  beforeAll(async () => {
    h = await startHarness();
    c = clientFor(h, (await h.createTenant('retry')).apiKey);
  });
  afterAll(async () => {
    await h.destroy();
  });

  const failedInput = {
    parentId: 'whatever',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'the prompt that failed' }] }],
  };
  const failedError = { status: 529, type: 'overloaded_error', message: 'Overloaded' };

  it('"nothing to retry" and "nothing loaded" are different answers', async () => {
    const id = await c.start();
    const nothing = await c.get(c.conv(id, '/retry'));
    const missing = await c.get(c.conv('never-started', '/retry'));
    expect(nothing.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(nothing.body.code).toBe('nothing_to_retry');
    expect(missing.body.code).toBe('conversation_not_found');
    expect(nothing.body.type).not.toBe(missing.body.type);
    expect(nothing.headers.get('content-type')).toContain('application/problem+json');
  });

  it('records a failed turn; retry returns it, also after a restart', async () => {
    const id = await c.start();
    const t1 = await c.turn(id, null, exchange('1'));
    const f = await c.post(c.conv(id, '/failures'), { input: failedInput, error: failedError });
    expect(f.status).toBe(201);
    expect(f.body).toEqual({ failureId: expect.any(String), revision: 4 });
    const events = await c.events(id);
    expect(events[events.length - 1]).toMatchObject({
      type: 'TurnFailed',
      data: { failureId: f.body.failureId, input: failedInput, error: failedError },
    });
    const r = await c.get(c.conv(id, '/retry'));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ input: failedInput, error: failedError });

    await h.restart();
    const after = await c.get(c.conv(id, '/retry'));
    expect(after.status).toBe(200);
    expect(after.body).toEqual(r.body);
    // A failure does not move the tip or add messages.
    expect(await c.conversation(id)).toMatchObject({ tip: t1.tip, counts: { messages: 2 } });
  });

  it('the latest failure is the one to retry', async () => {
    const id = await c.start();
    await c.post(c.conv(id, '/failures'), { input: 'first', error: 'e1' });
    await c.post(c.conv(id, '/failures'), { input: 'second', error: { code: 2 } });
    const r = await c.get(c.conv(id, '/retry'));
    expect(r.body).toMatchObject({ input: 'second', error: { code: 2 } });
  });

  it('a later committed turn clears it: nothing_to_retry, also after a restart', async () => {
    const id = await c.start();
    await c.post(c.conv(id, '/failures'), { input: failedInput, error: failedError });
    expect((await c.get(c.conv(id, '/retry'))).status).toBe(200);
    await c.turn(id, null, exchange('the retry worked'));
    const r = await c.get(c.conv(id, '/retry'));
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('nothing_to_retry');
    await h.restart();
    const after = await c.get(c.conv(id, '/retry'));
    expect(problemShape(after)).toEqual(problemShape(r));
    // A new failure after that turn is pending again.
    await c.post(c.conv(id, '/failures'), { input: 'again', error: 'boom' });
    expect((await c.get(c.conv(id, '/retry'))).body).toMatchObject({ input: 'again' });
  });

  it('a tip move or a checkpoint does not clear a pending failure', async () => {
    const id = await c.start();
    const t1 = await c.turn(id, null, exchange('1'));
    const t2 = await c.turn(id, t1.tip, exchange('2'));
    await c.post(c.conv(id, '/failures'), { input: 'x', error: 'y' });
    await c.moveTip(id, t1.tip);
    await c.checkpoint(id, 'cp', t2.tip);
    expect((await c.get(c.conv(id, '/retry'))).body).toMatchObject({ input: 'x', error: 'y' });
  });

  it('validates the failure body and refuses an unknown conversation', async () => {
    const id = await c.start();
    const noError = await c.post(c.conv(id, '/failures'), { input: 'x' });
    expect(noError.status).toBe(400);
    expect(noError.body.errors.map((e: { path: string }) => e.path)).toContain('body.error');
    const extra = await c.post(c.conv(id, '/failures'), { input: 'x', error: 'y', z: 1 });
    expect(extra.status).toBe(400);
    const ghost = await c.post(c.conv('ghost', '/failures'), { input: 'x', error: 'y' });
    expect(ghost.status).toBe(404);
    expect(ghost.body.code).toBe('conversation_not_found');
    // Nothing to retry there either, and it still is not "conversation_not_found".
    expect((await c.get(c.conv(id, '/retry'))).body.code).toBe('nothing_to_retry');
  });
});
