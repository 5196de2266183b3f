/**
 * Write-side snapshots on real files: the SQLite log, the key store, the snapshot file. A state
 * loaded from a snapshot plus its tail must equal the whole stream folded, and any snapshot that
 * does not match the log (other events, altered bytes, an erased key) must be ignored.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  decide,
  type Command,
  type ConversationState,
  foldEvents,
  initialState,
  type MessageInput,
} from '@arbor/domain';
import { stateSnapshot } from '@arbor/domain/testing/invariants';
import { type EventStore } from '@arbor/event-store';
import { type KeyStore, openSqliteKeyStore, withContentKeys } from '@arbor/event-store/crypto';
import { openSqliteEventStore } from '@arbor/event-store/sqlite';
import { openStateSnapshots, type StateSnapshots } from './state-snapshots';

const STREAM = 'conv-t1.c1';
const deps = { newId: () => randomUUID(), now: () => '2026-01-01T00:00:00.000Z' };
const meta = { tenantId: 't1', actor: 'test', timestamp: '2026-01-01T00:00:00.000Z' };
const turn = (i: number): MessageInput[] => [
  { role: 'user', content: [{ type: 'text', text: `question ${i}` }] },
  { role: 'assistant', content: [{ type: 'text', text: `answer ${i}` }] },
];

interface World {
  dir: string;
  keys: KeyStore;
  store: EventStore;
  snapshots: StateSnapshots;
  state: ConversationState;
  lastId: string;
}

const open = (dir: string, every = 10): Omit<World, 'state' | 'lastId'> => {
  const keys = openSqliteKeyStore(path.join(dir, 'keys.sqlite'), masterKey);
  const store = withContentKeys(openSqliteEventStore({ path: path.join(dir, 'log.sqlite') }), keys);
  const snapshots = openStateSnapshots(path.join(dir, 'snapshots.sqlite'), keys, { every });
  return { dir, keys, store, snapshots };
};

const masterKey = randomBytes(32);
const dirs: string[] = [];
const worlds: Omit<World, 'state' | 'lastId'>[] = [];

const newWorld = async (turns: number, every = 10): Promise<World> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-state-snapshots-'));
  dirs.push(dir);
  const w = open(dir, every);
  worlds.push(w);
  let state = initialState();
  let lastId = '';
  const run = async (command: Command) => {
    const d = decide(command, state, deps);
    if (!d.ok) throw new Error(d.error.code);
    const data = d.events.map((e) => ({
      id: randomUUID(),
      type: e.type,
      data: e.data,
      metadata: meta,
    }));
    await w.store.appendToStream(STREAM, data, {
      expectedRevision: state.revision < 0 ? 'no_stream' : BigInt(state.revision),
    });
    state = foldEvents(d.events, state);
    lastId = data[data.length - 1].id;
    w.snapshots.advanced(STREAM, state, lastId);
  };
  await run({ type: 'start', conversationId: 'c1', title: 'a secret title' });
  for (let i = 0; i < turns; i++) {
    await run({ type: 'commitTurn', parentId: state.tip, messages: turn(i) });
  }
  return { ...w, state, lastId };
};

/** Lets the snapshot writes scheduled with setImmediate run. */
const settle = () => new Promise((r) => setImmediate(r));

const rows = (dir: string) => {
  const db = new Database(path.join(dir, 'snapshots.sqlite'), { readonly: true });
  try {
    return db.prepare('SELECT stream, revision, event_id, box FROM state_snapshots').all() as {
      stream: string;
      revision: number;
      event_id: string;
      box: Buffer;
    }[];
  } finally {
    db.close();
  }
};

afterAll(async () => {
  for (const w of worlds) {
    await w.snapshots.close();
    await w.store.close().catch(() => undefined);
  }
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('write-side state snapshots', () => {
  it('are written every `every` events and a load folds only the tail; the result equals a full fold', async () => {
    const w = await newWorld(20); // 1 + 20 × 3 = 61 events
    await settle();
    const [row] = rows(w.dir);
    expect(row.stream).toBe(STREAM);
    expect(row.revision).toBeGreaterThanOrEqual(50);
    expect(row.revision).toBeLessThan(61);
    expect(row.box.toString('latin1')).not.toContain('a secret title');

    const loaded = await w.snapshots.load(w.store, STREAM);
    expect(loaded.folded).toBe(w.state.revision - row.revision);
    expect(loaded.lastEventId).toBe(w.lastId);
    const full = foldEvents(await w.store.readStream(STREAM));
    expect(stateSnapshot(loaded.state)).toBe(stateSnapshot(full));
    expect(stateSnapshot(loaded.state)).toBe(stateSnapshot(w.state));
  });

  it("a snapshot whose event is not the log's at that revision is ignored (a different log)", async () => {
    const a = await newWorld(20);
    await settle();
    // Another data dir's log, the same stream name, the same key store: a's snapshot file copied in.
    const b = await newWorld(20);
    await settle();
    a.snapshots.close();
    b.snapshots.close();
    fs.copyFileSync(path.join(a.dir, 'snapshots.sqlite'), path.join(b.dir, 'snapshots.sqlite'));
    for (const f of ['snapshots.sqlite-wal', 'snapshots.sqlite-shm']) {
      fs.rmSync(path.join(b.dir, f), { force: true });
    }
    // b's keys do not open a's box either; give b a's key too by opening a's key store.
    expect(rows(b.dir)).toEqual(rows(a.dir));
    expect(rows(b.dir)).toHaveLength(1);
    const snapshots = openStateSnapshots(path.join(b.dir, 'snapshots.sqlite'), a.keys);
    const loaded = await snapshots.load(b.store, STREAM);
    snapshots.close();
    expect(loaded.folded).toBe(b.state.revision + 1);
    expect(stateSnapshot(loaded.state)).toBe(stateSnapshot(b.state));
  });

  it('altered bytes, an erased key or no key at all mean a full fold, never a wrong state', async () => {
    const w = await newWorld(20);
    await settle();
    w.snapshots.close();
    const file = path.join(w.dir, 'snapshots.sqlite');
    const db = new Database(file);
    const [row] = rows(w.dir);
    const box = Buffer.from(row.box);
    box[box.length - 1] ^= 1;
    db.prepare('UPDATE state_snapshots SET box = ? WHERE stream = ?').run(box, STREAM);
    db.close();
    let snapshots = openStateSnapshots(file, w.keys, { every: 10 });
    let loaded = await snapshots.load(w.store, STREAM);
    expect(loaded.folded).toBe(w.state.revision + 1);
    expect(stateSnapshot(loaded.state)).toBe(stateSnapshot(w.state));
    // Rewritten from that full fold (folded ≥ every) …
    snapshots.advanced(STREAM, loaded.state, loaded.lastEventId as string);
    await settle();
    expect((await snapshots.load(w.store, STREAM)).folded).toBe(0);
    // … and never usable after the key is erased; drop deletes the row.
    await w.keys.erase(STREAM, { erasedAt: meta.timestamp, actor: 'test', reason: 'test' });
    loaded = await snapshots.load(w.store, STREAM);
    expect(loaded.folded).toBe(w.state.revision + 1);
    snapshots.advanced(STREAM, loaded.state, loaded.lastEventId as string);
    await settle();
    snapshots.drop(STREAM);
    expect(rows(w.dir)).toEqual([]);
    snapshots.close();
    // A stream with no data key (encryption off) gets no snapshot.
    snapshots = openStateSnapshots(file, w.keys, { every: 10 });
    snapshots.advanced('conv-t1.nokey', w.state, w.lastId);
    await settle();
    snapshots.close();
    expect(rows(w.dir)).toEqual([]);
  });
});
