/** The key-store contract against the SQLite key store (`<dataDir>/keys.sqlite`). */
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeKeyStoreContract } from '../testing/key-store-contract';
import { fileChangeCounter, openSqliteKeyStore } from './key-store';

describeKeyStoreContract('sqlite', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-key-store-'));
  const file = path.join(dir, 'keys.sqlite');
  return {
    open: (masterKey) => openSqliteKeyStore(file, masterKey),
    storedBytes: async () =>
      Buffer.concat(fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f)))),
    cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
});

describe('sqlite key store: the change-counter cache', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-key-counter-'));
  const file = path.join(dir, 'keys.sqlite');
  const master = randomBytes(32);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads the header counter SQLite bumps on each commit of another connection', () => {
    const a = openSqliteKeyStore(file, master);
    const counter = fileChangeCounter(file);
    const before = counter.read();
    const other = new Database(file);
    other.exec("INSERT INTO content_keys (stream, wrapped, created) VALUES ('conv-x.y', NULL, 0)");
    other.close();
    expect(before).not.toBeNull();
    expect(counter.read()).toBe((before ?? 0) + 1);
    counter.close();
    return a.close();
  });

  it('answers a steady lookup without reading the row, and reads it again after any commit', async () => {
    const a = openSqliteKeyStore(file, master);
    const b = openSqliteKeyStore(file, master);
    const stream = 'conv-t.counter';
    const key = Buffer.from(await a.keyFor(stream));
    // Every prepared statement shares one prototype: count the point reads b makes.
    const probe = new Database(file);
    const statementProto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as {
      get: (...args: unknown[]) => unknown;
    };
    probe.close();
    const reads = jest.spyOn(statementProto, 'get');
    try {
      expect(await b.existingKey(stream)).toEqual(key);
      expect(reads).toHaveBeenCalledTimes(1);
      expect(await b.existingKey(stream)).toEqual(key);
      expect(await b.keyFor(stream)).toEqual(key);
      expect(await b.erasure(stream)).toBeNull();
      expect(reads).toHaveBeenCalledTimes(1);
      // A commit by another connection, to another row: b reads its row once more.
      const third = new Database(file);
      third.exec(
        "INSERT INTO content_keys (stream, wrapped, created) VALUES ('conv-t.other', NULL, 0)",
      );
      third.close();
      expect(await b.existingKey(stream)).toEqual(key);
      expect(reads).toHaveBeenCalledTimes(2);
      // An erasure by a: b's next lookup sees it (no dropCached on b).
      await a.erase(stream, { erasedAt: '2026-01-01T00:00:00.000Z', actor: 'a', reason: 'r' });
      expect(await b.existingKey(stream)).toBe('erased');
      await expect(b.keyFor(stream)).rejects.toThrow('erased');
      expect((await b.erasure(stream))?.reason).toBe('r');
      // The erased row is remembered too (every request to an erased conversation asks).
      const afterErase = reads.mock.calls.length;
      expect(await b.existingKey(stream)).toBe('erased');
      expect(reads).toHaveBeenCalledTimes(afterErase);
    } finally {
      reads.mockRestore();
      await a.close();
      await b.close();
    }
  });

  it('zeroes a key dropped on purpose, never one only evicted (a read call may still use it)', async () => {
    const a = openSqliteKeyStore(file, master, { cacheKeys: 1 });
    const first = await a.keyFor('conv-t.evicted');
    const copy = Buffer.from(first);
    await a.keyFor('conv-t.evictor'); // evicts the first entry (cacheKeys: 1)
    expect(first).toEqual(copy);
    const second = await a.keyFor('conv-t.evictor');
    expect(second.equals(Buffer.alloc(32))).toBe(false);
    a.dropCached('conv-t.evictor');
    expect(second.equals(Buffer.alloc(32))).toBe(true);
    // The stored key is untouched: the next lookup unwraps it again.
    expect((await a.existingKey('conv-t.evicted')) as Buffer).toEqual(copy);
    await a.close();
  });
});
