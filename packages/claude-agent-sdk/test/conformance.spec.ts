/**
 * The SessionStore contract, against the real app over HTTP.
 *
 * The SDK's conformance suite is published as a `bun:test` file to copy into one's own tests
 * (`examples/session-stores/shared/conformance.ts` in anthropics/claude-agent-sdk-typescript, 13
 * contracts; the Python SDK ships the same 14 as `run_session_store_conformance`). It is not in
 * the npm package, so its contracts are written here for jest, one test each, in its order
 * (C1–C13, with the Python suite's extra checks on delete and list), followed by one test per
 * MUST/SHOULD sentence of the `SessionStore` type's documentation (D1–D6).
 */
import {
  type SessionKey,
  type SessionStore,
  type SessionStoreEntry,
} from '@anthropic-ai/claude-agent-sdk';
import { ArborClient } from '@arbor/client';
import { type Harness, startHarness } from '../../../test/support/harness';
import { ArborSessionStore } from '../src';

const KEY: SessionKey = { projectKey: 'proj', sessionId: 'sess' };
const E = (type: string, extra: Record<string, unknown> = {}): SessionStoreEntry => ({
  type,
  ...extra,
});

describe('ArborSessionStore: the SDK conformance contracts', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.destroy());

  const keys = new Map<SessionStore, string>();
  /** A fresh, isolated store: a tenant of its own. */
  const fresh = async (): Promise<SessionStore & ArborSessionStore> => {
    const { apiKey } = await h.createTenant('claude-agent-sdk');
    const store = new ArborSessionStore({
      client: new ArborClient({ baseUrl: h.baseUrl, apiKey }),
    });
    keys.set(store, apiKey);
    return store;
  };
  /** The API key of a store's tenant (a second client, another process, on the same data). */
  const keyOf = async (store: SessionStore): Promise<string> => keys.get(store) ?? '';

  it('C1 append then load returns the same entries in the same order', async () => {
    const store = await fresh();
    const entries = [
      E('a', { uuid: 'b', n: 1, nested: { x: [1, 2] } }),
      E('b', { uuid: 'a', n: 2 }),
    ];
    await store.append(KEY, entries);
    expect(await store.load(KEY)).toEqual(entries);
  });

  it('C2 load of an unknown key is null (main and subpath)', async () => {
    const store = await fresh();
    expect(await store.load(KEY)).toBeNull();
    expect(await store.load({ ...KEY, subpath: 'subagents/a' })).toBeNull();
    await store.append(KEY, [E('x', { uuid: 'x' })]);
    expect(await store.load({ ...KEY, subpath: 'nope' })).toBeNull();
  });

  it('C3 several appends keep call order', async () => {
    const store = await fresh();
    await store.append(KEY, [E('a')]);
    await store.append(KEY, [E('b'), E('c')]);
    await store.append(KEY, [E('d')]);
    expect(await store.load(KEY)).toEqual([E('a'), E('b'), E('c'), E('d')]);
  });

  it('C4 append([]) is a no-op', async () => {
    const store = await fresh();
    await store.append(KEY, []);
    expect(await store.load(KEY)).toBeNull();
    await store.append(KEY, [E('a')]);
    await store.append(KEY, []);
    expect(await store.load(KEY)).toEqual([E('a')]);
  });

  it('C5 subpath keys are stored apart from the main transcript', async () => {
    const store = await fresh();
    await store.append(KEY, [E('main')]);
    await store.append({ ...KEY, subpath: 'subagents/x' }, [E('sub')]);
    expect(await store.load(KEY)).toEqual([E('main')]);
    expect(await store.load({ ...KEY, subpath: 'subagents/x' })).toEqual([E('sub')]);
  });

  it('C6 projectKey isolation', async () => {
    const store = await fresh();
    const A = { projectKey: 'A', sessionId: 's' };
    const B = { projectKey: 'B', sessionId: 's' };
    await store.append(A, [E('a')]);
    await store.append(B, [E('b')]);
    expect(await store.load(A)).toEqual([E('a')]);
    expect(await store.load(B)).toEqual([E('b')]);
    expect(await store.listSessions('A')).toHaveLength(1);
    expect(await store.listSessions('B')).toHaveLength(1);
  });

  it('C7 listSessions answers the project’s session ids with epoch-ms mtimes', async () => {
    const store = await fresh();
    await store.append({ projectKey: 'P', sessionId: 's1' }, [E('a')]);
    await store.append({ projectKey: 'P', sessionId: 's2' }, [E('b')]);
    await store.append({ projectKey: 'Q', sessionId: 's3' }, [E('c')]);
    // A project whose key starts like P's is another project.
    await store.append({ projectKey: 'P/x', sessionId: 's4' }, [E('d')]);
    const listed = await store.listSessions('P');
    expect(listed.map((s) => s.sessionId).sort()).toEqual(['s1', 's2']);
    expect(listed.every((s) => Number.isInteger(s.mtime) && s.mtime > 1e12)).toBe(true);
    expect(await store.listSessions('never-seen')).toEqual([]);
  });

  it('C8 listSessions leaves out subagent subpaths', async () => {
    const store = await fresh();
    await store.append({ projectKey: 'P', sessionId: 'main' }, [E('m')]);
    await store.append({ projectKey: 'P', sessionId: 's1', subpath: 'subagents/x' }, [E('sub')]);
    expect((await store.listSessions('P')).map((s) => s.sessionId)).toEqual(['main']);
  });

  it('C9 delete, then load is null; deleting what was never written resolves', async () => {
    const store = await fresh();
    await store.delete({ projectKey: 'x', sessionId: 'never' });
    await store.append(KEY, [E('a')]);
    await store.delete(KEY);
    expect(await store.load(KEY)).toBeNull();
    // Written again after a delete: a new conversation (the erased one stays erased).
    await store.append(KEY, [E('again')]);
    expect(await store.load(KEY)).toEqual([E('again')]);
  });

  it('C10 deleting the main transcript cascades to its subkeys only', async () => {
    const store = await fresh();
    await store.append(KEY, [E('main')]);
    await store.append({ ...KEY, subpath: 'subagents/a' }, [E('sa')]);
    await store.append({ ...KEY, subpath: 'subagents/b' }, [E('sb')]);
    await store.append({ projectKey: 'proj', sessionId: 'other' }, [E('o')]);
    await store.append({ projectKey: 'proj2', sessionId: 'sess' }, [E('p2')]);
    await store.delete(KEY);
    expect(await store.load(KEY)).toBeNull();
    expect(await store.load({ ...KEY, subpath: 'subagents/a' })).toBeNull();
    expect(await store.load({ ...KEY, subpath: 'subagents/b' })).toBeNull();
    expect(await store.load({ projectKey: 'proj', sessionId: 'other' })).toEqual([E('o')]);
    expect(await store.load({ projectKey: 'proj2', sessionId: 'sess' })).toEqual([E('p2')]);
    expect(await store.listSubkeys(KEY)).toEqual([]);
    expect((await store.listSessions('proj')).map((s) => s.sessionId)).toEqual(['other']);
  });

  it('C11 delete with a subpath removes only that subkey', async () => {
    const store = await fresh();
    await store.append(KEY, [E('main')]);
    await store.append({ ...KEY, subpath: 'subagents/a' }, [E('sa')]);
    await store.append({ ...KEY, subpath: 'subagents/b' }, [E('sb')]);
    await store.delete({ ...KEY, subpath: 'subagents/a' });
    expect(await store.load(KEY)).toEqual([E('main')]);
    expect(await store.load({ ...KEY, subpath: 'subagents/a' })).toBeNull();
    expect(await store.load({ ...KEY, subpath: 'subagents/b' })).toEqual([E('sb')]);
    expect(await store.listSubkeys(KEY)).toEqual(['subagents/b']);
  });

  it('C12 listSubkeys answers the session’s subpaths', async () => {
    const store = await fresh();
    await store.append({ ...KEY, subpath: 'subagents/a' }, [E('sa')]);
    await store.append({ ...KEY, subpath: 'subagents/b' }, [E('sb')]);
    await store.append({ projectKey: 'proj', sessionId: 'other', subpath: 'subagents/c' }, [
      E('sc'),
    ]);
    // A session id that starts like this one's is another session.
    await store.append({ projectKey: 'proj', sessionId: 'sess/x', subpath: 'subagents/d' }, [
      E('sd'),
    ]);
    expect((await store.listSubkeys(KEY)).sort()).toEqual(['subagents/a', 'subagents/b']);
  });

  it('C13 listSubkeys leaves out the main transcript', async () => {
    const store = await fresh();
    await store.append(KEY, [E('main')]);
    expect(await store.listSubkeys(KEY)).toEqual([]);
    expect(await store.listSubkeys({ projectKey: 'x', sessionId: 'never' })).toEqual([]);
  });

  /* ---- the MUST/SHOULD sentences of the SessionStore type (sdk.d.ts) ---- */

  const user = (uuid: string, text: string, parentUuid: string | null = null) =>
    E('user', { uuid, parentUuid, message: { role: 'user', content: text } });
  const answer = (uuid: string, text: string, parentUuid: string) =>
    E('assistant', {
      uuid,
      parentUuid,
      message: { role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text }] },
    });

  it('D1 "SHOULD treat uuid as an idempotency key": a retried batch writes nothing twice', async () => {
    const store = await fresh();
    const batch = [user('u1', 'Hi'), answer('a1', 'Hello', 'u1'), E('last-prompt')];
    await store.append(KEY, batch);
    const id = store.conversationId(KEY);
    const client = new ArborClient({ baseUrl: h.baseUrl, apiKey: await keyOf(store) });
    const before = (await client.getConversation(id)).revision;
    // The SDK retries a rejected batch (3 attempts): the same uuids again.
    await store.append(KEY, [user('u1', 'Hi'), answer('a1', 'Hello', 'u1')]);
    // Another process (a new store object) retrying does not either.
    await new ArborSessionStore({ client }).append(KEY, batch.slice(0, 2));
    // The whole batch again, its entry without uuid too: a repeat, not a new tag.
    await store.append(KEY, batch);
    expect((await client.getConversation(id)).revision).toBe(before);
    expect(await store.load(KEY)).toEqual(batch);
  });

  it('D2 "entries without a uuid should be appended without dedup"', async () => {
    const store = await fresh();
    const tag = E('tag', { tag: 'x', sessionId: 'sess' });
    await store.append(KEY, [tag, tag]);
    await store.append(KEY, [tag]);
    // Beside new entries with uuid they are new too.
    await store.append(KEY, [user('u1', 'Hi'), tag]);
    await store.append(KEY, [tag, user('u2', 'again', 'u1')]);
    expect(await store.load(KEY)).toEqual([
      tag,
      tag,
      tag,
      user('u1', 'Hi'),
      tag,
      tag,
      user('u2', 'again', 'u1'),
    ]);
  });

  it('D3 "persist entries in append-call order" within a process, even when not awaited', async () => {
    const store = await fresh();
    await Promise.all([
      store.append(KEY, [user('u1', 'one')]),
      store.append(KEY, [answer('a1', 'two', 'u1')]),
      store.append(KEY, [E('mode', { mode: 'plan' })]),
      store.append(KEY, [user('u2', 'three', 'a1')]),
    ]);
    expect((await store.load(KEY))?.map((e) => e.uuid ?? e.type)).toEqual([
      'u1',
      'a1',
      'mode',
      'u2',
    ]);
  });

  it('D4 across processes, order is storage commit order and nothing is lost', async () => {
    const store = await fresh();
    const other = new ArborSessionStore({
      client: new ArborClient({ baseUrl: h.baseUrl, apiKey: await keyOf(store) }),
    });
    await store.append(KEY, [user('u1', 'one'), answer('a1', 'two', 'u1')]);
    await other.load(KEY); // the other process knows the tip as of now
    await store.append(KEY, [user('u2', 'three', 'a1'), answer('a2', 'four', 'u2')]);
    // Its tip is stale: the commit is refused (409 stale_tip), it reads again and lands after.
    await other.append(KEY, [user('u3', 'five', 'a2'), answer('a3', 'six', 'u3')]);
    await other.append(KEY, [user('u4', 'seven', 'a3')]);
    expect((await store.load(KEY))?.map((e) => e.uuid)).toEqual([
      'u1',
      'a1',
      'u2',
      'a2',
      'u3',
      'a3',
      'u4',
    ]);
  });

  it('D5 "Returned entries must be deep-equal to what was appended" (any JSON)', async () => {
    const store = await fresh();
    const odd = [
      E('x', { unicode: 'é ✓ 🌳', empty: '', zero: 0, neg: -1.5, no: false, nil: null }),
      E('x', { deep: { a: [{ b: [[{ c: 'd' }]] }] }, arr: [] }),
      E('user', { uuid: 'not a valid id!', message: { role: 'user', content: 'Hi' } }),
      E('assistant', { uuid: 'u-2', message: { role: 'assistant', content: [] } }),
    ];
    await store.append(KEY, odd);
    expect(await store.load(KEY)).toEqual(odd);
  });

  it('D6 "mtime is integer Unix epoch milliseconds" and moves with each append', async () => {
    const store = await fresh();
    await store.append(KEY, [E('a')]);
    const [first] = await store.listSessions('proj');
    await new Promise((r) => setTimeout(r, 5));
    await store.append(KEY, [E('b')]);
    const [second] = await store.listSessions('proj');
    expect(Number.isInteger(first.mtime)).toBe(true);
    expect(second.mtime).toBeGreaterThanOrEqual(first.mtime);
  });
});
