/**
 * The projector over EventStoreDB's wire: the real client, over HTTP/2, to the local wire server
 * (a test double, not a live EventStoreDB). The server is dropped while the projector is still
 * catching up; it comes back on the same port, and the projector resumes from its checkpoint:
 * every event applied exactly once, none skipped.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { type EventData } from '@arbor/event-store';
import { openEventStoreDbStore } from '@arbor/event-store/esdb';
import { EventStoreWireServer } from '@arbor/event-store/esdb/testing/wire-server';
import { type Projection } from './projection';
import { createProjector } from './projector';
import { openReadModelDb } from './read-model-db';

const md = { tenantId: 't', actor: 'wire', timestamp: '2026-01-01T00:00:00.000Z' };

/** One row per event id, with how many times it was applied. */
const applications: Projection = {
  name: 'applications',
  migrate: (db) =>
    db.exec('CREATE TABLE IF NOT EXISTS applied (id TEXT PRIMARY KEY, n INTEGER NOT NULL)'),
  drop: (db) => db.exec('DROP TABLE IF EXISTS applied'),
  tables: [{ name: 'applied', orderBy: 'id' }],
  prepare: (db) => {
    const bump = db.prepare(
      'INSERT INTO applied (id, n) VALUES (?, 1) ON CONFLICT(id) DO UPDATE SET n = n + 1',
    );
    return (e) => void bump.run(e.id);
  },
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const until = async (what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> => {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
};

describe('projector over the wire server', () => {
  let dir: string;
  let server: EventStoreWireServer;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-wire-'));
    server = await EventStoreWireServer.start();
  });
  afterEach(async () => {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('resumes from its checkpoint after the server dropped mid-subscription: nothing skipped or applied twice', async () => {
    const prefix = `w${randomBytes(4).toString('hex')}-`;
    const store = openEventStoreDbStore(server.connectionString);
    const batch = (from: number): EventData[] =>
      Array.from({ length: 10 }, (_, i) => ({ type: 'W', data: { i: from + i }, metadata: md }));
    for (let k = 0; k < 20; k++) await store.appendToStream(`${prefix}s${k % 3}`, batch(k * 10));

    const db = openReadModelDb(path.join(dir, 'rm.sqlite'));
    const errors: unknown[] = [];
    const projector = createProjector({
      store,
      db,
      set: { projections: [applications], filter: { streamPrefixes: [prefix] } },
      batchSize: 16,
      flushDelayMs: 0,
      restartDelayMs: 50,
      onError: (e) => errors.push(e),
    });
    const count = () => (db.prepare('SELECT COUNT(*) AS n FROM applied').get() as { n: number }).n;
    server.faults.delayMs = 5; // every event of the catch-up waits: the drop lands mid-stream
    await projector.start();
    await until('a first batch', () => count() > 0);

    await server.drop();
    await until('the projector to see the drop', () => errors.length > 0);
    expect(count()).toBeLessThan(200);
    server.faults.delayMs = 0;
    await server.restart();
    for (let k = 20; k < 25; k++) await store.appendToStream(`${prefix}s${k % 3}`, batch(k * 10));
    await until('every event applied', () => count() === 250);

    const twice = db.prepare('SELECT COUNT(*) AS n FROM applied WHERE n <> 1').get() as {
      n: number;
    };
    expect(twice.n).toBe(0);
    const ids = new Set(server.log.all.filter((e) => e.stream.startsWith(prefix)).map((e) => e.id));
    const applied = db.prepare('SELECT id FROM applied').all() as { id: string }[];
    expect(new Set(applied.map((r) => r.id))).toEqual(ids);
    await projector.stop();
    db.close();
    await store.close();
  });
});
