/**
 * The key-store contract: what every `KeyStore` (SQLite beside the log, EventStoreDB for several
 * machines) must do, run against each of them. A harness opens any number of stores over one
 * backing (the same file, the same server): each stands for another process's view.
 */
import { randomBytes } from 'node:crypto';
import { ContentErasedError, type KeyStore, KeyUnwrapError } from '../crypto/key-store';

export interface KeyStoreHarness {
  /** A new store over the shared backing (another process), with this master key. */
  open(masterKey: Buffer): KeyStore;
  /** The bytes at rest that hold `stream`'s wrapped key (the whole file, the server's events). */
  storedBytes(stream: string): Promise<Buffer>;
  /** Removes what the harness made (the stores it opened are closed by the suite). */
  cleanup(): Promise<void>;
}

const record = (reason: string) => ({
  erasedAt: '2026-01-02T03:04:05.000Z',
  actor: 'key:test',
  reason,
});

export const describeKeyStoreContract = (
  name: string,
  setup: () => Promise<KeyStoreHarness>,
): void => {
  describe(`KeyStore contract: ${name}`, () => {
    let harness: KeyStoreHarness;
    let opened: KeyStore[];
    const master = randomBytes(32);
    /** Another process's store over the same backing. */
    const store = (masterKey = master): KeyStore => {
      const s = harness.open(masterKey);
      opened.push(s);
      return s;
    };
    /** A conversation stream no other test (or run) uses. */
    const fresh = (): string => `conv-t${randomBytes(5).toString('hex')}.c1`;

    beforeEach(async () => {
      opened = [];
      harness = await setup();
    });
    afterEach(async () => {
      for (const s of opened) await s.close().catch(() => undefined);
      await harness.cleanup();
    });

    it('creates a key once and reads the same key back, here and in another process', async () => {
      const a = store();
      const stream = fresh();
      expect(await a.existingKey(stream)).toBeNull();
      const key = Buffer.from(await a.keyFor(stream));
      expect(key).toHaveLength(32);
      expect((await a.keyFor(stream)).equals(key)).toBe(true);
      expect(((await a.existingKey(stream)) as Buffer).equals(key)).toBe(true);
      const b = store();
      expect(((await b.existingKey(stream)) as Buffer).equals(key)).toBe(true);
      expect((await b.keyFor(stream)).equals(key)).toBe(true);
      expect(await a.erasure(stream)).toBeNull();
    });

    it('two processes creating the same key at once agree on one key', async () => {
      const [a, b] = [store(), store()];
      for (let round = 0; round < 5; round++) {
        const stream = fresh();
        const keys = await Promise.all([
          a.keyFor(stream),
          b.keyFor(stream),
          a.keyFor(stream),
          b.keyFor(stream),
        ]);
        for (const k of keys) expect(k.equals(keys[0])).toBe(true);
        const c = store();
        expect(((await c.existingKey(stream)) as Buffer).equals(keys[0])).toBe(true);
      }
    });

    it('erase is idempotent and returns true exactly once, even when two processes race', async () => {
      const [a, b] = [store(), store()];
      const stream = fresh();
      await a.keyFor(stream);
      const results = await Promise.all([
        a.erase(stream, record('first')),
        b.erase(stream, record('second')),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await a.erase(stream, record('again'))).toBe(false);
      expect(await b.erase(stream, record('again'))).toBe(false);
    });

    it('after erase: keyFor throws ContentErasedError and existingKey is erased', async () => {
      const a = store();
      const stream = fresh();
      await a.keyFor(stream);
      expect(await a.erase(stream, record('gdpr'))).toBe(true);
      expect(await a.existingKey(stream)).toBe('erased');
      await expect(a.keyFor(stream)).rejects.toBeInstanceOf(ContentErasedError);
      // A fresh process, too; and a stream erased before it ever had a key stays keyless.
      const b = store();
      expect(await b.existingKey(stream)).toBe('erased');
      await expect(b.keyFor(stream)).rejects.toBeInstanceOf(ContentErasedError);
      const never = fresh();
      expect(await b.erase(never, record('never had one'))).toBe(true);
      expect(await b.existingKey(never)).toBe('erased');
      await expect(a.keyFor(never)).rejects.toBeInstanceOf(ContentErasedError);
    });

    it('keeps the erasure record (who, when, why; the first one wins) and lists it by prefix', async () => {
      const a = store();
      const stream = fresh();
      const tenantPrefix = stream.slice(0, stream.indexOf('.') + 1);
      const other = fresh();
      await a.keyFor(stream);
      await a.keyFor(other);
      await a.erase(stream, record('gdpr request 42'));
      await a.erase(stream, record('later'));
      const expected = { stream, ...record('gdpr request 42') };
      expect(await a.erasure(stream)).toEqual(expected);
      const b = store();
      expect(await b.erasure(stream)).toEqual(expected);
      expect(await b.erasure(other)).toBeNull();
      expect(await b.erasures(tenantPrefix)).toEqual([expected]);
      await b.erase(other, record('other'));
      expect(await a.erasures(tenantPrefix)).toEqual([expected]);
    });

    it('another process sees an erasure on its next lookup (its cached key no longer counts)', async () => {
      const [a, b] = [store(), store()];
      const stream = fresh();
      const key = Buffer.from(await b.keyFor(stream));
      expect(((await b.existingKey(stream)) as Buffer).equals(key)).toBe(true);
      expect(await a.erase(stream, record('on a'))).toBe(true);
      // No dropCached on b: its next lookup alone must see it.
      expect(await b.existingKey(stream)).toBe('erased');
      await expect(b.keyFor(stream)).rejects.toBeInstanceOf(ContentErasedError);
      expect((await b.erasure(stream))?.reason).toBe('on a');
    });

    it('counts live keys: one more per key created, one less per key erased', async () => {
      const a = store();
      const before = await a.liveKeys();
      const [s1, s2] = [fresh(), fresh()];
      await a.keyFor(s1);
      await a.keyFor(s2);
      await a.keyFor(s1);
      expect(await a.liveKeys()).toBe(before + 2);
      await a.erase(s1, record('x'));
      expect(await store().liveKeys()).toBe(before + 1);
    });

    it('never stores a data key in clear: the wrapped bytes are not the key', async () => {
      const a = store();
      const stream = fresh();
      const key = Buffer.from(await a.keyFor(stream));
      const bytes = await harness.storedBytes(stream);
      expect(bytes.length).toBeGreaterThan(0);
      expect(bytes.includes(key)).toBe(false);
      expect(bytes.includes(Buffer.from(key.toString('hex')))).toBe(false);
      expect(bytes.includes(Buffer.from(key.toString('base64')))).toBe(false);
      expect(bytes.includes(Buffer.from(key.toString('base64url')))).toBe(false);
      expect(bytes.includes(master)).toBe(false);
      expect(bytes.includes(Buffer.from(master.toString('hex')))).toBe(false);
      expect(bytes.includes(Buffer.from(master.toString('base64')))).toBe(false);
    });

    it('a wrong master key fails clearly (KeyUnwrapError naming the master key), never a wrong key', async () => {
      const a = store();
      const stream = fresh();
      await a.keyFor(stream);
      const wrong = store(randomBytes(32));
      const failure = await wrong.existingKey(stream).then(
        () => null,
        (e: unknown) => e,
      );
      expect(failure).toBeInstanceOf(KeyUnwrapError);
      expect((failure as Error).message).toMatch(/master key/);
      await expect(wrong.keyFor(stream)).rejects.toBeInstanceOf(KeyUnwrapError);
      // The right key still opens it.
      expect(await store().existingKey(stream)).toBeInstanceOf(Buffer);
    });
  });
};
