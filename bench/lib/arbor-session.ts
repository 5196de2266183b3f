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
    type: e.type,
    data: e.data,
    metadata: { tenantId, actor: 'bench', timestamp },
  }));
};

/** One conversation's write side: cached state, decide, append expecting its revision, evolve. */
export const createWriter = (store: EventStore, tenantId: string, conversationId: string) => {
  const stream = conversationStream(tenantId, conversationId);
  let state: ConversationState = initialState();
  return {
    get state() {
      return state;
    },
    /** Folds the stream from the log (what a restarted server does on the first command). */
    async load(): Promise<ConversationState> {
      state = foldEvents(await store.readStream(stream), initialState());
      return state;
    },
    async execute<C extends Command>(command: C): Promise<ResultOf<C['type']>> {
      const decision = decide(command, state, deps);
      if (!decision.ok) throw new Error(`${decision.error.code}: ${decision.error.message}`);
      if (decision.events.length > 0) {
        await store.appendToStream(stream, toEventData(decision.events, tenantId), {
          expectedRevision: state.revision < 0 ? 'no_stream' : BigInt(state.revision),
        });
        state = foldEvents(decision.events, state);
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
 * SQLite store alone (what these benches measured before content sealing existed).
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
  return withContentKeys(chained, keys, { encrypt: process.env.ARBOR_ENCRYPTION !== 'off' });
};

/** The whole active branch, root → tip, read page by page as the API serves it. */
export const readActiveBranch = (
  queries: ConversationQueries,
  tenantId: string,
  conversationId: string,
  pageSize = 1000,
): Message[] => {
  const out: Message[] = [];
  let from: number | null = 0;
  while (from !== null) {
    const page = queries.activeBranchPage(tenantId, conversationId, from, pageSize);
    out.push(...page.items);
    from = page.nextDepth;
  }
  return out;
};
