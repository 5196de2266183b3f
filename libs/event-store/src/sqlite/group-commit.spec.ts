import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { StoreUnavailableError, WrongExpectedVersionError } from '../errors';
import { describeEventStoreContract } from '../testing/event-store-contract';
import { type AppendResult, type EventData } from '../types';
import { createGroupCommitter, type QueuedAppend } from './group-commit';
import { openSqliteEventStore, type SqliteEventStore } from './sqlite-event-store';

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-'));

// Every rule of the port holds with group commit off too (the default, on, runs in the main spec).
describeEventStoreContract('sqlite, group commit off', async () => {
  const dir = tempDir();
  const store = openSqliteEventStore({
    path: path.join(dir, 'events.sqlite'),
    pollIntervalMs: 20,
    groupCommit: false,
  });
  return {
    store,
    cleanup: async () => {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

const queued = (stream: string): QueuedAppend => ({ stream, events: [], expected: 'any' });
const result = (n: number): AppendResult => ({ nextExpectedRevision: BigInt(n), position: 1n });

describe('createGroupCommitter', () => {
  it('commits the appends of one event-loop turn as one batch, in arrival order', async () => {
    const batches: string[][] = [];
    let woken = 0;
    const committer = createGroupCommitter(
      (appends) => {
        batches.push(appends.map((a) => a.stream));
        return appends.map((_, i) => ({ ok: true, result: result(i) }));
      },
      () => woken++,
    );
    const first = await Promise.all(['a', 'b', 'c'].map((s) => committer.enqueue(queued(s))));
    const second = await committer.enqueue(queued('d'));
    expect(batches).toEqual([['a', 'b', 'c'], ['d']]);
    expect(first.map((r) => r.nextExpectedRevision)).toEqual([0n, 1n, 2n]);
    expect(second.nextExpectedRevision).toBe(0n);
    expect(woken).toBe(2);
  });

  it('settles each append with its own outcome', async () => {
    const refused = new WrongExpectedVersionError('b', 0n, 'no_stream');
    const committer = createGroupCommitter(
      (appends) =>
        appends.map((a, i) =>
          a.stream === 'b' ? { ok: false, error: refused } : { ok: true, result: result(i) },
        ),
      () => undefined,
    );
    const settled = await Promise.allSettled(
      ['a', 'b', 'c'].map((s) => committer.enqueue(queued(s))),
    );
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason).toBe(refused);
  });

  it('refuses every append of a batch whose transaction failed, and wakes nobody', async () => {
    const failure = new StoreUnavailableError('disk I/O');
    let woken = 0;
    const committer = createGroupCommitter(
      () => {
        throw failure;
      },
      () => woken++,
    );
    const settled = await Promise.allSettled(['a', 'b'].map((s) => committer.enqueue(queued(s))));
    expect(settled.every((s) => s.status === 'rejected' && s.reason === failure)).toBe(true);
    expect(woken).toBe(0);
  });

  it('flushes at once when the batch is full, and on demand', async () => {
    const sizes: number[] = [];
    const committer = createGroupCommitter(
      (appends) => {
        sizes.push(appends.length);
        return appends.map((_, i) => ({ ok: true, result: result(i) }));
      },
      () => undefined,
      2,
    );
    const all = ['a', 'b', 'c'].map((s) => committer.enqueue(queued(s)));
    expect(sizes).toEqual([2]);
    committer.flush();
    expect(sizes).toEqual([2, 1]);
    await Promise.all(all);
    committer.flush(); // nothing queued: no empty batch
    expect(sizes).toEqual([2, 1]);
  });
});

const md = { tenantId: 't1', actor: 'spec', timestamp: '2026-01-01T00:00:00.000Z' };
const ev = (type: string, id: string = randomUUID()): EventData => ({
  id,
  type,
  data: {},
  metadata: md,
});

describe('sqlite store with group commit', () => {
  let dir: string;
  let file: string;
  let store: SqliteEventStore;

  beforeEach(() => {
    dir = tempDir();
    file = path.join(dir, 'events.sqlite');
    store = openSqliteEventStore({ path: file, busyTimeoutMs: 0 });
  });

  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is on by default', () => {
    expect(store.groupCommit).toBe(true);
  });

  /** Frames the write-ahead log gained while `work` ran: a commit writes each page it changed. */
  const walFrames = async (path: string, work: () => Promise<unknown>) => {
    const size = () => (fs.existsSync(`${path}-wal`) ? fs.statSync(`${path}-wal`).size : 32);
    const before = size();
    await work();
    return (size() - before) / (4096 + 24);
  };

  it('writes concurrent appends in one transaction: they share one commit', async () => {
    const appends = () => ['a', 'b', 'c', 'd'].map((s) => [s, [ev('E'), ev('E')]] as const);
    const grouped = await walFrames(file, () =>
      Promise.all(appends().map(([s, e]) => store.appendToStream(s, e))),
    );
    const oneByOneFile = path.join(dir, 'one-by-one.sqlite');
    const oneByOne = openSqliteEventStore({ path: oneByOneFile, groupCommit: false });
    const separate = await walFrames(oneByOneFile, () =>
      Promise.all(appends().map(([s, e]) => oneByOne.appendToStream(s, e))),
    );
    await oneByOne.close();
    expect(grouped).toBeGreaterThan(0);
    // The same pages, written once for the group instead of once per append.
    expect(separate).toBeGreaterThanOrEqual(4 * grouped);
    const all = await store.readAll();
    expect(all.map((e) => e.position)).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n]);
  });

  it('checks each append against the ones before it in the batch, as if committed one by one', async () => {
    const retried = [ev('R'), ev('R')];
    const settled = await Promise.allSettled([
      store.appendToStream('s', [ev('A')], { expectedRevision: 'no_stream' }),
      store.appendToStream('s', [ev('B')], { expectedRevision: 0n }),
      store.appendToStream('s', [ev('Stale'), ev('Stale')], { expectedRevision: 0n }),
      store.appendToStream('t', retried, { expectedRevision: 'no_stream' }),
      store.appendToStream('t', retried, { expectedRevision: 'no_stream' }),
    ]);
    expect(settled.map((s) => s.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect((settled[2] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedVersionError);
    // The retry of the same append in the same batch is idempotent: same result, nothing written.
    const [first, again] = settled
      .slice(3)
      .map((s) => (s as PromiseFulfilledResult<AppendResult>).value);
    expect(again).toEqual(first);
    expect((await store.readStream('s')).map((e) => e.type)).toEqual(['A', 'B']);
    expect(await store.readStream('t')).toHaveLength(2);
    // The refused append left no hole: positions stay gap-free.
    expect((await store.readAll()).map((e) => e.position)).toEqual([1n, 2n, 3n, 4n]);
  });

  it('refuses the whole batch when the transaction cannot start, and writes nothing', async () => {
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    const settled = await Promise.allSettled([
      store.appendToStream('a', [ev('E')]),
      store.appendToStream('b', [ev('E')]),
    ]);
    other.exec('ROLLBACK');
    other.close();
    for (const s of settled) {
      expect(s.status).toBe('rejected');
      expect((s as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
    }
    expect(await store.readAll()).toEqual([]);
  });

  it('commits queued appends before closing', async () => {
    const pending = store.appendToStream('s', [ev('E')]);
    await store.close();
    await expect(pending).resolves.toMatchObject({ nextExpectedRevision: 0n });
    const reopened = openSqliteEventStore({ path: file });
    expect(await reopened.readStream('s')).toHaveLength(1);
    await reopened.close();
  });
});
