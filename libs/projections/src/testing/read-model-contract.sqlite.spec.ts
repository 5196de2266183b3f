import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteEventStore, type SqliteEventStore } from '@arbor/event-store/sqlite';
import { conversationsProjection } from '../conversations';
import { createConversationQueries } from '../conversations/queries';
import { sqliteSink } from '../projector';
import { asyncQueries, type ReadModelSink } from '../read-model-port';
import { openReadModelDb } from '../read-model-db';
import { readModelContract } from './read-model-contract';

const open = new Map<object, () => Promise<void>>();

/**
 * The contract hands events straight to the sink; the SQLite read model reads bodies from the
 * log its rows point into, so each event is first written to a real log at its revision (once:
 * a redelivered event is already there).
 */
const intoLog = (store: SqliteEventStore, sink: ReadModelSink): ReadModelSink => {
  const heads = new Map<string, bigint>();
  return {
    ...sink,
    apply: async (events, position) => {
      for (const e of events) {
        const head = heads.get(e.streamName) ?? -1n;
        if (e.revision <= head) continue;
        await store.appendToStream(
          e.streamName,
          [{ id: e.id, type: e.type, data: e.data, metadata: e.metadata }],
          { expectedRevision: head < 0n ? 'no_stream' : head },
        );
        heads.set(e.streamName, e.revision);
      }
      await sink.apply(events, position);
    },
  };
};

readModelContract('SQLite (embedded)', {
  open: async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-contract-'));
    const store = openSqliteEventStore({ path: path.join(dir, 'events.sqlite') });
    const db = openReadModelDb(':memory:');
    const sink = sqliteSink(db, 'contract', [conversationsProjection]);
    sink.bindLog?.(store);
    const rm = {
      sink: intoLog(store, sink),
      queries: asyncQueries(createConversationQueries(db)),
    };
    open.set(rm, async () => {
      db.close();
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    return rm;
  },
  close: async (rm) => {
    await open.get(rm)?.();
    open.delete(rm);
  },
});
