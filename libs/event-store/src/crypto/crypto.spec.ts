import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { openSqliteEventStore } from '../sqlite';
import { ERASED, openData, sealData } from './content';
import { ContentErasedError, openSqliteKeyStore } from './key-store';
import { loadMasterKey, MASTER_KEY_FILE } from './master-key';
import { withContentKeys } from './sealed-store';

const meta = { tenantId: 't1', actor: 'test', timestamp: '2026-01-01T00:00:00.000Z' };
const MARKER = 'zebra-marker-7f3a9c';

const message = (id: string, text: string) => ({
  message: {
    id,
    parentId: null,
    role: 'user',
    content: [{ type: 'text', text }],
    turnId: 'turn1',
    createdAt: meta.timestamp,
  },
});

const filesUnder = (dir: string): Buffer[] =>
  fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => fs.readFileSync(path.join(e.parentPath, e.name)));

describe('content sealing', () => {
  const key = randomBytes(32);

  it('seals only the content fields and opens them back', () => {
    const data = message('m1', MARKER);
    const sealed = sealData('MessageAppended', data, key, 'conv-t1.c1', 0n) as {
      message: Record<string, unknown>;
    };
    expect(JSON.stringify(sealed)).not.toContain(MARKER);
    expect(sealed.message.id).toBe('m1');
    expect(sealed.message.role).toBe('user');
    expect(sealed.message.content).toBeNull();
    expect(openData('MessageAppended', sealed, key, 'conv-t1.c1', 0n)).toEqual(data);
  });

  it('opens data with its keys in the order they were written (answers read back byte for byte)', () => {
    const decision = {
      decision: {
        id: 'd1',
        rung: 'elide',
        model: 'm',
        results: [{ toolUseId: 'c' }],
        tokensBefore: 9,
      },
    };
    const msg = {
      message: { ...message('m1', MARKER).message, model: 'claude', usage: { input_tokens: 1 } },
    };
    for (const [type, data] of [
      ['CompactionApplied', decision],
      ['MessageAppended', msg],
    ] as const) {
      const sealed = sealData(type, data, key, 'conv-t1.c1', 0n);
      const opened = openData(type, sealed, key, 'conv-t1.c1', 0n);
      expect(JSON.stringify(opened)).toBe(JSON.stringify(data));
    }
  });

  it('opens events sealed before a field was sealed: that field read as it was written, in clear', () => {
    // As the previous version wrote it: the model and the message's clientData were not sealed.
    const data = {
      message: { ...message('m1', MARKER).message, model: 'claude-x', clientData: { k: 1 } },
    };
    const { model, clientData, ...rest } = data.message;
    const old = sealData('MessageAppended', { message: rest }, key, 'conv-t1.c1', 2n) as {
      message: Record<string, unknown>;
      sealed: { fields: string[] };
    };
    expect(old.sealed.fields).toEqual(['message.content']);
    const written = { ...old, message: { ...old.message, model, clientData } };
    expect(openData('MessageAppended', written, key, 'conv-t1.c1', 2n)).toEqual(data);
    // Erased: the fields that were sealed read as erased, the rest as they were.
    const erased = openData('MessageAppended', written, null, 'conv-t1.c1', 2n) as typeof data;
    expect(erased.message.content).toEqual([{ type: 'text', text: ERASED }]);
    expect(erased.message.model).toBe('claude-x');
    // Written now, both are sealed; erased, both are gone.
    const now = sealData('MessageAppended', data, key, 'conv-t1.c1', 2n);
    expect(JSON.stringify(now)).not.toContain('claude-x');
    const gone = openData('MessageAppended', now, null, 'conv-t1.c1', 2n) as typeof data;
    expect(gone.message).not.toHaveProperty('model');
    expect(gone.message).not.toHaveProperty('clientData');
    // A tenant event written in clear (before tenant streams had a key) reads as it is.
    const clear = { tenantId: 't1', name: 'Acme' };
    expect(openData('TenantCreated', clear, null, 'tenant-t1.profile', 0n)).toEqual(clear);
  });

  it('never changes the object it seals or opens (both copy what they rewrite)', () => {
    const data = { ...message('m1', MARKER), other: { kept: true } };
    (data.message as Record<string, unknown>).metadata = { source: MARKER };
    const before = structuredClone(data);
    const sealed = sealData('MessageAppended', data, key, 'conv-t1.c1', 0n);
    expect(data).toEqual(before);
    const sealedBefore = structuredClone(sealed);
    expect(openData('MessageAppended', sealed, key, 'conv-t1.c1', 0n)).toEqual(before);
    expect(openData('MessageAppended', sealed, null, 'conv-t1.c1', 0n)).not.toEqual(before);
    expect(sealed).toEqual(sealedBefore);
  });

  it('refuses a box moved to another revision or stream, or opened with another key', () => {
    const sealed = sealData('MessageAppended', message('m1', 'x'), key, 'conv-t1.c1', 3n);
    expect(() => openData('MessageAppended', sealed, key, 'conv-t1.c1', 4n)).toThrow();
    expect(() => openData('MessageAppended', sealed, key, 'conv-t1.c2', 3n)).toThrow();
    expect(() => openData('MessageAppended', sealed, randomBytes(32), 'conv-t1.c1', 3n)).toThrow();
  });

  it('reads [erased] stand-ins without the key, keeping the structure', () => {
    const sealed = sealData('MessageAppended', message('m1', 'x'), key, 'conv-t1.c1', 0n);
    const opened = openData('MessageAppended', sealed, null, 'conv-t1.c1', 0n) as {
      message: { id: string; content: unknown };
    };
    expect(opened.message.id).toBe('m1');
    expect(opened.message.content).toEqual([{ type: 'text', text: ERASED }]);
  });

  it("seals a branch summary's text and instruction; erased, they read [erased]", () => {
    const data = {
      version: 1,
      summaryId: 's1',
      ancestorId: 'm2',
      abandonedIds: ['a1'],
      summary: `what branch a learned: ${MARKER}`,
      instruction: `keep ${MARKER}`,
      tokens: 9,
    };
    const sealed = sealData('BranchSummarized', data, key, 'conv-t1.c1', 5n);
    expect(JSON.stringify(sealed)).not.toContain(MARKER);
    expect(sealed).toMatchObject({ summaryId: 's1', ancestorId: 'm2', tokens: 9 });
    expect(openData('BranchSummarized', sealed, key, 'conv-t1.c1', 5n)).toEqual(data);
    expect(openData('BranchSummarized', sealed, null, 'conv-t1.c1', 5n)).toMatchObject({
      summaryId: 's1',
      summary: ERASED,
      instruction: ERASED,
    });
  });

  it('uses a fresh nonce per event', () => {
    const a = sealData('TurnFailed', { failureId: 'f', input: 'same', error: 'e' }, key, 's', 0n);
    const b = sealData('TurnFailed', { failureId: 'f', input: 'same', error: 'e' }, key, 's', 0n);
    expect(JSON.stringify(a)).not.toEqual(JSON.stringify(b));
  });
});

describe('the key store and the sealed log', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-keys-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('creates master.key 0600 once, and never writes a data key or the master key in clear elsewhere', async () => {
    const master = loadMasterKey(dir, {});
    expect(master.created).toBe(true);
    expect(fs.statSync(path.join(dir, MASTER_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(loadMasterKey(dir, {}).key.equals(master.key)).toBe(true);
    const keys = openSqliteKeyStore(path.join(dir, 'keys.sqlite'), master.key);
    const store = withContentKeys(
      openSqliteEventStore({ path: path.join(dir, 'events.sqlite') }),
      keys,
    );
    await store.appendToStream(
      'conv-t1.c1',
      [{ type: 'MessageAppended', data: message('m1', MARKER), metadata: meta }],
      {
        expectedRevision: 'no_stream',
      },
    );
    const dataKey = Buffer.from(await keys.keyFor('conv-t1.c1'));
    await store.close();
    for (const bytes of filesUnder(dir)) {
      expect(bytes.includes(dataKey)).toBe(false);
      expect(bytes.includes(Buffer.from(dataKey.toString('hex')))).toBe(false);
      expect(bytes.includes(Buffer.from(dataKey.toString('base64')))).toBe(false);
      expect(bytes.includes(Buffer.from(MARKER))).toBe(false);
    }
    // the master key is only in master.key
    const others = fs.readdirSync(dir).filter((f) => f !== MASTER_KEY_FILE);
    for (const f of others) {
      const bytes = fs.readFileSync(path.join(dir, f));
      expect(bytes.includes(master.key)).toBe(false);
      expect(bytes.includes(Buffer.from(master.key.toString('hex')))).toBe(false);
    }
  });

  it('after erasure: structure only, no new content, nothing of the key left in the file', async () => {
    const master = randomBytes(32);
    const keys = openSqliteKeyStore(path.join(dir, 'keys.sqlite'), master);
    const raw = openSqliteEventStore({ path: path.join(dir, 'events.sqlite') });
    const store = withContentKeys(raw, keys);
    await store.appendToStream(
      'conv-t1.c1',
      [{ type: 'MessageAppended', data: message('m1', MARKER), metadata: meta }],
      {
        expectedRevision: 'no_stream',
      },
    );
    const [before] = await store.readStream('conv-t1.c1');
    expect(JSON.stringify(before.data)).toContain(MARKER);
    const range = { fromRevision: 0n, maxCount: 10 };
    // The data-only read opens what readStream opens, and after erasure reads what it reads.
    expect(await store.readStreamData?.('conv-t1.c1', range)).toEqual([
      { revision: 0n, type: 'MessageAppended', data: before.data },
    ]);
    const wrapped = (await import('better-sqlite3')).default;
    const peek = new wrapped(path.join(dir, 'keys.sqlite'), { readonly: true });
    const row = peek.prepare('SELECT wrapped FROM content_keys').get() as { wrapped: Buffer };
    peek.close();
    expect(
      await keys.erase('conv-t1.c1', { erasedAt: meta.timestamp, actor: 'test', reason: 'gdpr' }),
    ).toBe(true);
    expect(
      await keys.erase('conv-t1.c1', { erasedAt: meta.timestamp, actor: 'test', reason: 'again' }),
    ).toBe(false);
    const [after] = await store.readStream('conv-t1.c1');
    expect(JSON.stringify(after.data)).not.toContain(MARKER);
    expect((after.data as { message: { id: string } }).message.id).toBe('m1');
    expect(await store.readStreamData?.('conv-t1.c1', range)).toEqual([
      { revision: 0n, type: 'MessageAppended', data: after.data },
    ]);
    await expect(
      store.appendToStream(
        'conv-t1.c1',
        [{ type: 'MessageAppended', data: message('m2', 'y'), metadata: meta }],
        {
          expectedRevision: 0n,
        },
      ),
    ).rejects.toBeInstanceOf(ContentErasedError);
    // an event without content may still be appended (the erasure record)
    await store.appendToStream(
      'conv-t1.c1',
      [{ type: 'ConversationErased', data: { reason: 'gdpr' }, metadata: meta }],
      {
        expectedRevision: 0n,
      },
    );
    expect((await keys.erasure('conv-t1.c1'))?.reason).toBe('gdpr');
    await store.close();
    expect(fs.readFileSync(path.join(dir, 'keys.sqlite')).includes(row.wrapped)).toBe(false);
  });

  it('turns a loose append into the exact head revision (the box is bound to it)', async () => {
    const keys = openSqliteKeyStore(path.join(dir, 'keys.sqlite'), randomBytes(32));
    const store = withContentKeys(
      openSqliteEventStore({ path: path.join(dir, 'events.sqlite') }),
      keys,
    );
    await store.appendToStream('conv-t1.c1', [
      { type: 'MessageAppended', data: message('m1', 'a'), metadata: meta },
    ]);
    await store.appendToStream('conv-t1.c1', [
      { type: 'MessageAppended', data: message('m2', 'b'), metadata: meta },
    ]);
    const events = await store.readStream('conv-t1.c1');
    expect(
      events.map(
        (e) => (e.data as { message: { content: { text: string }[] } }).message.content[0].text,
      ),
    ).toEqual(['a', 'b']);
    await store.close();
  });
});
