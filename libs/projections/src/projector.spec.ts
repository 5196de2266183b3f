import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type EventStore } from '@arbor/event-store';
import { openSqliteEventStore } from '@arbor/event-store/sqlite';
import { type Projection } from './projection';
import { createProjector } from './projector';
import { openReadModelDb } from './read-model-db';

const md = { tenantId: 't', actor: 'spec', timestamp: '2026-01-01T00:00:00.000Z' };

/** Counts events per type in one table; throws on a `Poison` event. */
const counting: Projection = {
  name: 'counting',
  migrate: (db) =>
    db.exec('CREATE TABLE IF NOT EXISTS counts (type TEXT PRIMARY KEY, n INTEGER NOT NULL)'),
  drop: (db) => db.exec('DROP TABLE IF EXISTS counts'),
  tables: [{ name: 'counts', orderBy: 'type' }],
  prepare: (db) => {
    const bump = db.prepare(
      'INSERT INTO counts (type, n) VALUES (?, 1) ON CONFLICT(type) DO UPDATE SET n = n + 1',
    );
    return (e) => {
      if (e.type === 'Poison') throw new Error('poisoned');
      bump.run(e.type);
    };
  },
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('projector batching', () => {
  let dir: string;
  let store: EventStore;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-'));
    store = openSqliteEventStore({ path: path.join(dir, 'events.sqlite'), synchronous: 'OFF' });
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const open = (flushDelayMs: number, onError?: (e: unknown) => void) => {
    const db = openReadModelDb(path.join(dir, 'rm.sqlite'));
    const projector = createProjector({
      store,
      db,
      set: { projections: [counting] },
      flushDelayMs,
      onError,
    });
    return { db, projector };
  };

  it('holds received events for the delay, then applies them together', async () => {
    const { db, projector } = open(10_000);
    await projector.start();
    let last = 0n;
    for (let i = 0; i < 5; i++)
      last = (await store.appendToStream('s', [{ type: 'E', data: {}, metadata: md }])).position;
    await sleep(100);
    expect(projector.status().position).toBeNull();
    // A reader waiting for the last write has everything received applied at once.
    const t0 = Date.now();
    expect(await projector.waitFor(last, 5_000)).toBe(true);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(db.prepare('SELECT n FROM counts WHERE type = ?').pluck().get('E')).toBe(5);
    await projector.stop();
    db.close();
  });

  it('applies on its own once the delay has passed', async () => {
    const { db, projector } = open(20);
    await projector.start();
    const { position } = await store.appendToStream('s', [{ type: 'E', data: {}, metadata: md }]);
    for (let i = 0; i < 100 && projector.status().position !== position; i++) await sleep(10);
    expect(projector.status().position).toBe(position);
    await projector.stop();
    db.close();
  });

  it('a failure in a delayed apply stops the projector and reports it, without crashing', async () => {
    const errors: unknown[] = [];
    const { db, projector } = open(5, (e) => errors.push(e));
    await projector.start();
    await store.appendToStream('s', [{ type: 'Poison', data: {}, metadata: md }]);
    for (let i = 0; i < 100 && projector.status().running; i++) await sleep(10);
    expect(projector.status()).toMatchObject({ running: false, lastError: 'poisoned' });
    expect(errors).toHaveLength(1);
    expect(projector.status().position).toBeNull();
    await projector.stop();
    db.close();
  });

  it('a failure answers every waiter at once, and waits while stopped answer false', async () => {
    const { db, projector } = open(10_000);
    await projector.start();
    const { position } = await store.appendToStream('s', [
      { type: 'Poison', data: {}, metadata: md },
    ]);
    // Had the failure not answered it, this waiter would outlive the test's timeout.
    const waited = projector.waitFor(position, 10 * 60_000);
    expect(await waited).toBe(false);
    expect(projector.status()).toMatchObject({ running: false, lastError: 'poisoned' });
    expect(await projector.waitFor(position, 10 * 60_000)).toBe(false);
    await projector.stop();
    db.close();
  });

  it('with restartDelayMs, a failed projector starts again from its position once the cause is gone', async () => {
    /** Fails while `full` is set, like SQLITE_FULL on the read-model file. */
    let full = false;
    const flaky: Projection = {
      ...counting,
      name: 'flaky',
      prepare: (db) => {
        const apply = counting.prepare(db);
        return (e) => {
          if (full) throw new Error('database or disk is full');
          apply(e);
        };
      },
    };
    const errors: unknown[] = [];
    const db = openReadModelDb(path.join(dir, 'rm.sqlite'));
    const projector = createProjector({
      store,
      db,
      set: { projections: [flaky] },
      flushDelayMs: 0,
      restartDelayMs: 20,
      onError: (e) => errors.push(e),
    });
    await projector.start();
    const first = await store.appendToStream('s', [{ type: 'E', data: {}, metadata: md }]);
    expect(await projector.waitFor(first.position, 60_000)).toBe(true);
    full = true;
    const { position } = await store.appendToStream('s', [
      { type: 'E', data: {}, metadata: md },
      { type: 'E', data: {}, metadata: md },
    ]);
    expect(await projector.waitFor(position, 60_000)).toBe(false);
    // It keeps retrying (and failing) while the cause is there...
    for (let i = 0; i < 200 && errors.length < 3; i++) await sleep(10);
    expect(errors.length).toBeGreaterThanOrEqual(2);
    expect(projector.status().position).toBe(first.position);
    // ...and catches up once it is gone, applying each event once.
    full = false;
    for (let i = 0; i < 500 && projector.status().position !== position; i++) await sleep(10);
    expect(projector.status()).toMatchObject({ position, running: true });
    expect(db.prepare('SELECT n FROM counts WHERE type = ?').pluck().get('E')).toBe(3);
    await projector.stop();
    db.close();
  });

  it('stop() cancels a pending restart', async () => {
    const errors: unknown[] = [];
    const db = openReadModelDb(path.join(dir, 'rm.sqlite'));
    const projector = createProjector({
      store,
      db,
      set: { projections: [counting] },
      flushDelayMs: 0,
      restartDelayMs: 20,
      onError: (e) => errors.push(e),
    });
    await projector.start();
    await store.appendToStream('s', [{ type: 'Poison', data: {}, metadata: md }]);
    for (let i = 0; i < 100 && errors.length === 0; i++) await sleep(10);
    await projector.stop();
    const after = errors.length;
    await sleep(200);
    expect(errors.length).toBe(after);
    expect(projector.status().running).toBe(false);
    db.close();
  });
});
