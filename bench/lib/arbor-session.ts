/**
 * Arbor embedded in process, for benches: the SQLite event store, the domain's decide/evolve for
 * commands (what the API's repository does, without HTTP), and the projector + queries for reads
 * (what the API's read side does). No Nest.
 */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import {
  type Command,
  type ConversationEvent,
  type ConversationState,
  decide,
  foldEvents,
  initialState,
  type Message,
  type ResultOf,
} from '@arbor/domain';
import { conversationStream, type EventData, type EventStore } from '@arbor/event-store';
import { loadAuditSecret, withHashChain } from '@arbor/audit';
import { openStateSnapshots, type StateSnapshots, stateSnapshotsPath } from '@arbor/projections';
import {
  keyStoreDataPath,
  loadMasterKey,
  openSqliteKeyStore,
  withContentKeys,
} from '@arbor/event-store/crypto';
import {
  eventStoreDataPath,
  openSqliteEventStore,
  type SynchronousMode,
} from '@arbor/event-store/sqlite';
import {
  type ConversationQueries,
  conversationsProjection,
  createConversationQueries,
  createProjector,
  DEFAULT_BRANCH_WINDOW_CACHE,
  openReadModelDb,
  type Projector,
  readModelDataPath,
} from '@arbor/projections';

export const PROJECTION_SET = {
  projections: [conversationsProjection],
  filter: { streamPrefixes: ['conv-'] },
};

const deps = { newId: () => randomUUID(), now: () => new Date().toISOString() };

export const toEventData = (
  events: readonly ConversationEvent[],
  tenantId: string,
): EventData[] => {
  const timestamp = deps.now();
  return events.map((e) => ({
    id: randomUUID(),
    type: e.type,
    data: e.data,
    metadata: { tenantId, actor: 'bench', timestamp },
  }));
};

/** The write-side snapshots opened with each store (as the server's repository has them). */
const snapshotsOf = new WeakMap<EventStore, StateSnapshots>();

/**
 * One conversation's write side: cached state, decide, append expecting its revision, evolve;
 * write-side snapshots as the server's repository keeps them (state-snapshots.ts).
 */
export const createWriter = (store: EventStore, tenantId: string, conversationId: string) => {
  const stream = conversationStream(tenantId, conversationId);
  const snapshots = snapshotsOf.get(store);
  let state: ConversationState = initialState();
  return {
    get state() {
      return state;
    },
    /**
     * What a restarted server does on the first command: its snapshot and the events after it,
     * or the whole stream folded when there is no usable snapshot.
     */
    async load(): Promise<ConversationState> {
      if (snapshots === undefined) {
        state = foldEvents(await store.readStream(stream), initialState());
        return state;
      }
      const loaded = await snapshots.load(store, stream);
      state = loaded.state;
      if (loaded.lastEventId !== null) snapshots.advanced(stream, state, loaded.lastEventId);
      return state;
    },
    async execute<C extends Command>(command: C): Promise<ResultOf<C['type']>> {
      const decision = decide(command, state, deps);
      if (!decision.ok) throw new Error(`${decision.error.code}: ${decision.error.message}`);
      if (decision.events.length > 0) {
        const data = toEventData(decision.events, tenantId);
        await store.appendToStream(stream, data, {
          expectedRevision: state.revision < 0 ? 'no_stream' : BigInt(state.revision),
        });
        state = foldEvents(decision.events, state);
        snapshots?.advanced(stream, state, data[data.length - 1].id as string);
      }
      return decision.result;
    },
  };
};

export interface ReadSide {
  db: Database.Database;
  projector: Projector;
  queries: ConversationQueries;
  /** Resolves once the projector has applied everything in the log. */
  caughtUp(): Promise<void>;
  close(): Promise<void>;
}

/** The read models beside the log in `dataDir`, their projector started (it resumes). */
export const openReadSide = async (store: EventStore, dataDir: string): Promise<ReadSide> => {
  const db = openReadModelDb(readModelDataPath(dataDir), undefined, checkpointIntervalMs());
  const projector = createProjector({ store, db, set: PROJECTION_SET });
  await projector.start();
  const caughtUp = async () => {
    const head = await store.headPosition();
    if (head !== null && !(await projector.waitFor(head, 60 * 60 * 1000))) {
      throw new Error('projector did not catch up');
    }
  };
  return {
    db,
    projector,
    queries: createConversationQueries(
      db,
      process.env.ARBOR_BRANCH_CACHE_MIB === undefined
        ? undefined
        : {
            ...DEFAULT_BRANCH_WINDOW_CACHE,
            maxBytes: Number(process.env.ARBOR_BRANCH_CACHE_MIB) * 1024 * 1024,
          },
    ),
    caughtUp,
    close: async () => {
      await projector.stop();
      db.close();
    },
  };
};

/** ARBOR_SQLITE_CHECKPOINT_MS as the server reads it (unset: the store's default; 0: SQLite's autocheckpoint). */
const checkpointIntervalMs = (): number | undefined =>
  process.env.ARBOR_SQLITE_CHECKPOINT_MS === undefined
    ? undefined
    : Number(process.env.ARBOR_SQLITE_CHECKPOINT_MS);

/**
 * The log as the server composes it: the SQLite store, the hash chain (every append chained and
 * keyed with `<dataDir>/audit.key`) and content sealing (each conversation's own data key from
 * `<dataDir>/keys.sqlite`, wrapped by `<dataDir>/master.key`). `ARBOR_BENCH_STORE=bare` gives the
 * SQLite store alone (what these benches measured before content sealing existed). Write-side
 * snapshots (`<dataDir>/state-snapshots.sqlite`) come with the composed store, every
 * `ARBOR_STATE_SNAPSHOT_EVERY` events (default 1,000 as in the server; 0: none).
 */
export const openStore = (dataDir: string, synchronous: SynchronousMode): EventStore => {
  const sqlite = openSqliteEventStore({
    path: eventStoreDataPath(dataDir),
    synchronous,
    checkpointIntervalMs: checkpointIntervalMs(),
  });
  if (process.env.ARBOR_BENCH_STORE === 'bare') return sqlite;
  const chained = withHashChain(sqlite, loadAuditSecret(dataDir, {}).key);
  const keys = openSqliteKeyStore(keyStoreDataPath(dataDir), loadMasterKey(dataDir, {}).key);
  const store = withContentKeys(chained, keys, {
    encrypt: process.env.ARBOR_ENCRYPTION !== 'off',
  });
  const every = Number(process.env.ARBOR_STATE_SNAPSHOT_EVERY ?? 1000);
  if (every === 0) return store;
  const snapshots = openStateSnapshots(stateSnapshotsPath(dataDir), keys, { every });
  const withSnapshots: EventStore = {
    ...store,
    close: async () => {
      await snapshots.close();
      await store.close();
    },
  };
  snapshotsOf.set(withSnapshots, snapshots);
  return withSnapshots;
};

/** The whole active branch, root → tip, read page by page as the API serves it. */
export const readActiveBranch = async (
  queries: ConversationQueries,
  tenantId: string,
  conversationId: string,
  pageSize = 1000,
): Promise<Message[]> => {
  const out: Message[] = [];
  let from: number | null = 0;
  while (from !== null) {
    const page = await queries.activeBranchPage(tenantId, conversationId, from, pageSize);
    out.push(...page.items);
    from = page.nextDepth;
  }
  return out;
};
