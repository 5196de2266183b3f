import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import {
  EventStoreError,
  InvalidEventError,
  InvalidStreamNameError,
  StoreUnavailableError,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from '../errors';
import { describeEventStoreContract } from '../testing/event-store-contract';
import { type EventData, type SubscriptionMessage } from '../types';
import { type SynchronousMode } from './schema';
import {
  eventStoreDataPath,
  openSqliteEventStore,
  type SqliteEventStore,
  type SqliteEventStoreOptions,
} from './sqlite-event-store';

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-'));

describeEventStoreContract('sqlite', async () => {
  const dir = tempDir();
  const store = openSqliteEventStore({ path: path.join(dir, 'events.sqlite'), pollIntervalMs: 20 });
  return {
    store,
    cleanup: async () => {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

const md = { tenantId: 't1', actor: 'spec', timestamp: '2026-01-01T00:00:00.000Z' };
const ev = (type: string, data: unknown = {}, id?: string): EventData => ({
  ...(id === undefined ? {} : { id }),
  type,
  data,
  metadata: md,
});
const many = (n: number, type = 'E'): EventData[] =>
  Array.from({ length: n }, (_, i) => ev(type, { i }));

describe('sqlite event store (specific)', () => {
  let dir: string;
  let file: string;
  const opened: SqliteEventStore[] = [];
  const open = (options: Partial<SqliteEventStoreOptions> = {}) => {
    const store = openSqliteEventStore({ path: file, pollIntervalMs: 20, ...options });
    opened.push(store);
    return store;
  };

  beforeEach(() => {
    dir = tempDir();
    file = path.join(dir, 'nested', 'dir', 'events.sqlite');
  });

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const positions = async (store: SqliteEventStore) =>
    (await store.readAll()).map((e) => e.position);
  const range = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => BigInt(from + i));

  it('names its file inside the data dir and creates missing directories', async () => {
    expect(eventStoreDataPath('/var/arbor')).toBe(path.join('/var/arbor', 'events.sqlite'));
    const store = open();
    expect(store.kind).toBe('sqlite');
    expect(store.path).toBe(file);
    expect(store.synchronous).toBe('FULL');
    expect(fs.existsSync(file)).toBe(true);
    expect(await store.headPosition()).toBeNull();
  });

  it('uses WAL and refuses an unknown synchronous mode', () => {
    open();
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
    expect(() =>
      openSqliteEventStore({ path: file, synchronous: 'SOMETIMES' as SynchronousMode }),
    ).toThrow(StoreUnavailableError);
  });

  it('keeps everything across close and reopen, and positions continue without a gap', async () => {
    const first = open();
    await first.appendToStream('s-1', many(3), { expectedRevision: 'no_stream' });
    await first.appendToStream('s-2', many(2));
    const before = await first.readAll();
    await first.close();

    const second = open();
    expect(await second.readAll()).toEqual(before);
    const result = await second.appendToStream('s-1', many(1), { expectedRevision: 2n });
    expect(result).toEqual({ nextExpectedRevision: 3n, position: 6n });
    expect(await positions(second)).toEqual(range(1, 6));
  });

  it('positions stay gap-free across rejected appends', async () => {
    const store = open();
    const id = '0b0e6f5e-3d0a-4c57-9d5b-2f1f3d0f6a11';
    await store.appendToStream('s-1', [ev('A', 1, id)]);
    await expect(store.appendToStream('s-1', many(2), { expectedRevision: 5n })).rejects.toThrow(
      WrongExpectedVersionError,
    );
    // Fails inside the transaction, after the first insert: rolled back, nothing kept.
    await expect(store.appendToStream('s-2', [ev('B'), ev('C', 2, id)])).rejects.toThrow(
      WrongExpectedVersionError,
    );
    await expect(store.readStream('s-2')).rejects.toThrow(StreamNotFoundError);
    await store.appendToStream('s-3', many(2));
    expect(await positions(store)).toEqual(range(1, 3));
  });

  it('event ids are unique across the whole log (stricter than EventStoreDB)', async () => {
    const store = open();
    const id = '7a4c8c1e-2f0b-4d8a-8a47-0c1d2e3f4a5b';
    await store.appendToStream('s-1', [ev('A', 1, id)]);
    await expect(store.appendToStream('s-2', [ev('A', 1, id)])).rejects.toThrow(
      WrongExpectedVersionError,
    );
    await expect(
      store.appendToStream('s-3', [ev('A', 1, randomUUID()), ev('A', 2, id)], {
        expectedRevision: 'no_stream',
      }),
    ).rejects.toThrow(WrongExpectedVersionError);
    const dup = randomUUID();
    await expect(store.appendToStream('s-4', [ev('A', 1, dup), ev('A', 2, dup)])).rejects.toThrow(
      WrongExpectedVersionError,
    );
    expect((await store.readAll()).map((e) => e.streamName)).toEqual(['s-1']);
  });

  it('stores upper-case UUIDs lower-case, so a retry in either case is idempotent', async () => {
    const store = open();
    const id = randomUUID();
    const first = await store.appendToStream('s-1', [ev('A', 1, id.toUpperCase())], {
      expectedRevision: 'no_stream',
    });
    const retry = await store.appendToStream('s-1', [ev('A', 1, id)], {
      expectedRevision: 'no_stream',
    });
    expect(retry).toEqual(first);
    expect((await store.readStream('s-1')).map((e) => e.id)).toEqual([id]);
  });

  it('refuses invalid events, stream names and options before writing', async () => {
    const store = open();
    await expect(store.appendToStream('s', [ev('')])).rejects.toThrow(InvalidEventError);
    await expect(store.appendToStream('s', [{ ...ev('A'), data: undefined }])).rejects.toThrow(
      InvalidEventError,
    );
    await expect(store.appendToStream('', [ev('A')])).rejects.toThrow(InvalidStreamNameError);
    await expect(store.appendToStream('$all', [ev('A')])).rejects.toThrow(InvalidStreamNameError);
    await expect(store.appendToStream('s', [ev('A')], { expectedRevision: -1n })).rejects.toThrow(
      EventStoreError,
    );
    await expect(store.readAll({ maxCount: -1 })).rejects.toThrow(EventStoreError);
    expect(await store.headPosition()).toBeNull();
  });

  it('an empty append checks the expected revision and reports where the stream is', async () => {
    const store = open();
    expect(await store.appendToStream('s', [], { expectedRevision: 'no_stream' })).toEqual({
      nextExpectedRevision: -1n,
      position: -1n,
    });
    await store.appendToStream('s', many(2));
    expect(await store.appendToStream('s', [], { expectedRevision: 1n })).toEqual({
      nextExpectedRevision: 1n,
      position: 2n,
    });
    await expect(store.appendToStream('s', [], { expectedRevision: 0n })).rejects.toThrow(
      WrongExpectedVersionError,
    );
  });

  it('the log table is append-only even for raw SQL', async () => {
    const store = open();
    await store.appendToStream('s', many(1));
    const raw = new Database(file);
    expect(() => raw.prepare("UPDATE events SET data = '{}'").run()).toThrow(/append-only/);
    expect(() => raw.prepare('DELETE FROM events').run()).toThrow(/append-only/);
    raw.close();
    expect(await store.readStream('s')).toHaveLength(1);
  });

  it('refuses a file written by a newer schema', () => {
    open();
    const raw = new Database(file);
    raw.pragma('user_version = 99');
    raw.close();
    expect(() => openSqliteEventStore({ path: file })).toThrow(/schema version 99/);
  });

  it('an empty prefix or type list matches nothing (fails closed)', async () => {
    const store = open();
    await store.appendToStream('conv-t1.c1', many(2));
    expect(await store.readAll({ filter: { streamPrefixes: [] } })).toEqual([]);
    expect(await store.readAll({ filter: { eventTypes: [] } })).toEqual([]);
    expect(await store.readAll({ filter: { streamPrefixes: ['CONV-'] } })).toEqual([]);
    expect(await store.readAll({ filter: { streamPrefixes: ['conv-t1.'] } })).toHaveLength(2);
  });

  it('reports caughtUp at the head (null on an empty log)', async () => {
    const store = open();
    const empty = store.subscribeToAll();
    for await (const m of empty) {
      expect(m).toEqual({ kind: 'caughtUp', position: null });
      break;
    }
    await store.appendToStream('s', many(3));
    const full = store.subscribeToAll({ fromPosition: 1n });
    const seen: SubscriptionMessage[] = [];
    for await (const m of full) {
      seen.push(m);
      if (m.kind === 'caughtUp') break;
    }
    expect(seen.map((m) => m.kind)).toEqual(['event', 'event', 'caughtUp']);
    expect(seen[2]).toEqual({ kind: 'caughtUp', position: 3n });
  });

  it('emits a checkpoint at every checkpointInterval-th scanned position, after the events before it', async () => {
    const store = open({ subscriptionBatchSize: 7 });
    await store.appendToStream('noise', many(12, 'Noise'));
    await store.appendToStream('s', [ev('Wanted', 'at 13')]);
    await store.appendToStream('noise', many(12, 'Noise'));
    const subscription = store.subscribeToAll({
      filter: { eventTypes: ['Wanted'] },
      checkpointInterval: 5,
    });
    const seen: string[] = [];
    for await (const m of subscription) {
      if (m.kind === 'caughtUp') break;
      seen.push(m.kind === 'event' ? `event@${m.event.position}` : `checkpoint@${m.position}`);
    }
    expect(seen).toEqual([
      'checkpoint@5',
      'checkpoint@10',
      'event@13',
      'checkpoint@15',
      'checkpoint@20',
      'checkpoint@25',
    ]);
    // An unfiltered subscription has nothing to skip and sends no checkpoints (as EventStoreDB).
    const kinds = new Set<string>();
    for await (const m of store.subscribeToAll({ checkpointInterval: 1 })) {
      kinds.add(m.kind);
      if (m.kind === 'caughtUp') break;
    }
    expect([...kinds].sort()).toEqual(['caughtUp', 'event']);
  });

  it('reads in bounded windows without losing events at the window edges', async () => {
    const store = open({ subscriptionBatchSize: 3 });
    for (let i = 0; i < 10; i++) await store.appendToStream(`s-${i % 3}`, [ev('E', i)]);
    const received: unknown[] = [];
    for await (const m of store.subscribeToAll()) {
      if (m.kind === 'event') received.push(m.event.data);
      if (m.kind === 'caughtUp') break;
    }
    expect(received).toEqual(Array.from({ length: 10 }, (_, i) => i));
  });

  it('a second store instance on the same file sees the first one’s appends (poll)', async () => {
    const writer = open();
    const reader = open({ pollIntervalMs: 10 });
    const subscription = reader.subscribeToAll();
    const iterator = subscription[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual({ kind: 'caughtUp', position: null });
    const next = iterator.next();
    await writer.appendToStream('s', [ev('FromWriter', 1)]);
    const message = (await next).value as SubscriptionMessage;
    expect(message.kind === 'event' && message.event.data).toBe(1);
    await subscription.unsubscribe();
    // Both write: SQLite serializes them and the rules hold across instances.
    await reader.appendToStream('s', [ev('FromReader', 2)], { expectedRevision: 0n });
    await expect(
      writer.appendToStream('s', [ev('Stale', 3)], { expectedRevision: 0n }),
    ).rejects.toThrow(WrongExpectedVersionError);
    expect(await positions(writer)).toEqual(range(1, 2));
  });

  it('another process appending to the file is seen by a live subscription', async () => {
    const store = open({ pollIntervalMs: 10 });
    await store.appendToStream('s', many(1));
    const subscription = store.subscribeToAll({ fromPosition: 'end' });
    const iterator = subscription[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual({ kind: 'caughtUp', position: 1n });
    const next = iterator.next();
    const script = `
      const db = new (require(${JSON.stringify(require.resolve('better-sqlite3'))}))(process.argv[1]);
      db.pragma('busy_timeout = 5000');
      db.prepare("INSERT INTO events (stream, revision, event_id, type, data, metadata, created)
        VALUES ('other', 0, '${randomUUID()}', 'FromChild', '7', '{}', 0)").run();
      db.close();`;
    execFileSync(process.execPath, ['-e', script.replace(/\n/g, ' '), file]);
    const message = (await next).value as SubscriptionMessage;
    expect(message).toMatchObject({ kind: 'event', event: { type: 'FromChild', position: 2n } });
    await subscription.unsubscribe();
  });

  it('close ends live subscriptions and later calls fail with StoreUnavailableError', async () => {
    const store = open();
    const subscription = store.subscribeToAll();
    const iterator = subscription[Symbol.asyncIterator]();
    await iterator.next(); // caughtUp
    const pending = iterator.next();
    await store.close();
    expect((await pending).done).toBe(true);
    await expect(store.appendToStream('s', many(1))).rejects.toThrow(StoreUnavailableError);
    await expect(store.readAll()).rejects.toThrow(StoreUnavailableError);
    expect(() => store.subscribeToAll()).toThrow(StoreUnavailableError);
    await store.close(); // idempotent
  });
});
