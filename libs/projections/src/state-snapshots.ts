// Validated against the log, sealed with the conversation's key, written off the commit path:
// README ("State snapshots").
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import {
  type ConversationState,
  decodeState,
  encodeState,
  foldEvents,
  initialState,
  STATE_SNAPSHOT_VERSION,
} from '@arbor/domain';
import { type EventStore, type RecordedEvent, StreamNotFoundError } from '@arbor/event-store';
import { type KeyStore, openBytes, sealBytes } from '@arbor/event-store/crypto';

export const STATE_SNAPSHOTS_FILE = 'state-snapshots.sqlite';
export const DEFAULT_SNAPSHOT_EVERY = 1000;

export const stateSnapshotsPath = (dataDir: string): string =>
  path.join(dataDir, STATE_SNAPSHOTS_FILE);

export interface StateSnapshots {
  /** Caught up with the log: from a valid snapshot, else folded from the first event. */
  load(store: EventStore, stream: string): Promise<LoadedState>;
  /** The stream's newest state; snapshotted soon once `every` events have passed. */
  advanced(stream: string, state: ConversationState, lastEventId: string): void;
  drop(stream: string): void;
  close(): Promise<void>;
}

export interface LoadedState {
  state: ConversationState;
  lastEventId: string | null;
  folded: number;
}

interface Row {
  version: number;
  revision: number;
  event_id: string;
  box: Buffer;
}

const aadOf = (stream: string, revision: number, eventId: string): Buffer =>
  Buffer.from(`arbor-state/${STATE_SNAPSHOT_VERSION}|${stream}|${revision}|${eventId}`, 'utf8');

const readFrom = async (
  store: EventStore,
  stream: string,
  fromRevision: number,
): Promise<RecordedEvent[]> => {
  try {
    return await store.readStream(stream, { fromRevision: BigInt(fromRevision) });
  } catch (e) {
    if (e instanceof StreamNotFoundError) return [];
    throw e;
  }
};

export const openStateSnapshots = (
  file: string,
  keys: KeyStore,
  options: { every?: number } = {},
): StateSnapshots => {
  const every = options.every ?? DEFAULT_SNAPSHOT_EVERY;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // A cache: a lost write costs a longer fold, never a wrong state.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.exec(`CREATE TABLE IF NOT EXISTS state_snapshots (
    stream TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    revision INTEGER NOT NULL,
    event_id TEXT NOT NULL,
    box BLOB NOT NULL
  ) STRICT`);
  const s = {
    get: db.prepare(
      'SELECT version, revision, event_id, box FROM state_snapshots WHERE stream = ?',
    ),
    put: db.prepare(
      `INSERT INTO state_snapshots (stream, version, revision, event_id, box) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (stream) DO UPDATE SET version = excluded.version, revision = excluded.revision,
         event_id = excluded.event_id, box = excluded.box
       WHERE excluded.revision >= state_snapshots.revision`,
    ),
    drop: db.prepare('DELETE FROM state_snapshots WHERE stream = ?'),
  };
  const snapshotAt = new LRUCache<string, number>({ max: 10_000 });
  const pending = new Map<string, { state: ConversationState; eventId: string }>();
  /** Set by close(): the file stays open until the pending snapshots are written. */
  let closed = false;
  let dbOpen = true;
  let scheduled = false;
  let flushing: Promise<void> | null = null;

  const keyOf = async (stream: string): Promise<Buffer | null> => {
    const key = await keys.existingKey(stream);
    return key === null || key === 'erased' ? null : key;
  };

  const readSnapshot = async (
    stream: string,
  ): Promise<{ state: ConversationState; eventId: string } | null> => {
    const row = s.get.get(stream) as Row | undefined;
    if (row === undefined || row.version !== STATE_SNAPSHOT_VERSION) return null;
    let key: Buffer | null;
    try {
      key = await keyOf(stream);
    } catch {
      return null; // the key store is unreachable or refuses the key: fold the stream instead
    }
    if (key === null) return null;
    let text: string;
    try {
      text = openBytes(key, row.box, aadOf(stream, row.revision, row.event_id)).toString('utf8');
    } catch {
      return null; // altered, or sealed under another key: fold the stream instead
    }
    const state = decodeState(text);
    if (state === null || state.revision !== row.revision) return null;
    return { state, eventId: row.event_id };
  };

  const write = (
    stream: string,
    key: Buffer | null,
    state: ConversationState,
    eventId: string,
  ): void => {
    if (key === null || !dbOpen) return;
    const plaintext = Buffer.from(encodeState(state), 'utf8');
    const box = sealBytes(key, plaintext, aadOf(stream, state.revision, eventId));
    plaintext.fill(0);
    s.put.run(stream, STATE_SNAPSHOT_VERSION, state.revision, eventId, box);
    snapshotAt.set(stream, state.revision);
  };

  /** One key lookup per stream; a failed lookup skips it (a cache). */
  const writePending = async (): Promise<void> => {
    const batch = [...pending];
    pending.clear();
    for (const [stream, { state, eventId }] of batch) {
      let key: Buffer | null = null;
      try {
        key = await keyOf(stream);
      } catch {
        continue;
      }
      write(stream, key, state, eventId);
    }
  };

  const flush = (): Promise<void> => {
    scheduled = false;
    const run = (flushing ?? Promise.resolve()).then(writePending);
    const tracked: Promise<void> = run
      .catch(() => undefined)
      .then(() => {
        if (flushing === tracked) flushing = null;
      });
    flushing = tracked;
    return run;
  };

  return {
    async load(store, stream) {
      const snapshot = await readSnapshot(stream);
      if (snapshot !== null) {
        const events = await readFrom(store, stream, snapshot.state.revision);
        if (events.length > 0 && events[0].id === snapshot.eventId) {
          snapshotAt.set(stream, snapshot.state.revision);
          return {
            state: foldEvents(events.slice(1), snapshot.state),
            lastEventId: events[events.length - 1].id,
            folded: events.length - 1,
          };
        }
      }
      const events = await readFrom(store, stream, 0);
      return {
        state: foldEvents(events, initialState()),
        lastEventId: events.length === 0 ? null : events[events.length - 1].id,
        folded: events.length,
      };
    },
    advanced(stream, state, lastEventId) {
      if (closed || state.status !== 'active') return;
      if (state.revision - (snapshotAt.get(stream) ?? -1) < every) return;
      pending.set(stream, { state, eventId: lastEventId });
      if (!scheduled) {
        scheduled = true;
        setImmediate(() => {
          if (dbOpen) void flush().catch(() => undefined);
        });
      }
    },
    drop(stream) {
      pending.delete(stream);
      snapshotAt.delete(stream);
      if (dbOpen) s.drop.run(stream);
    },
    async close() {
      if (closed) return;
      closed = true;
      if (pending.size > 0 || flushing !== null) {
        await flushing?.catch(() => undefined);
        await writePending().catch(() => undefined);
      }
      dbOpen = false;
      db.close();
    },
  };
};
