/**
 * Replay = the live fold stopped at a revision. The conversation's events up to N go through the
 * very projections the live read side runs (same `prepare` handlers, same batch applier) into a
 * fresh in-memory read-model database, and through the domain's `evolve`; the answer is then read
 * with the same query functions the live reads use. No Nest here: the CLI can reuse it.
 */
import { type RecordedEvent } from '@arbor/event-store';
import { type ConversationState, evolve, initialState } from '@arbor/domain';
import {
  type ConversationQueries,
  createBatchApplier,
  createConversationQueries,
  dumpReadModels,
  eventMessages,
  migrateAll,
  openReadModelDb,
  type Projection,
} from '@arbor/projections';

export interface ReplayFold {
  /** Applies the next events of the conversation's stream (in order), and, before each, every
   * pending event of another stream (a fork's `ConversationStarted`) recorded earlier in `$all`. */
  apply(events: readonly RecordedEvent[]): void;
  /** Adds events of other streams, to be applied where their global position falls. */
  addForeign(events: readonly RecordedEvent[]): void;
  /** The read models as of the last applied event, queried like the live ones. */
  readonly queries: ConversationQueries;
  /** The domain state of the conversation as of the last applied event. */
  state(): ConversationState;
  /** The last event of the conversation's stream applied, or null. */
  last(): RecordedEvent | null;
  /** Canonical dump of the replayed read models (as `dumpReadModels`). */
  dump(): string;
  close(): void;
}

/**
 * Interleaves `foreign` events into `own` by global position: every foreign event recorded before
 * an own event comes before it. Foreign events after the last own event are left out (they did
 * not exist yet when it was written) and returned as `rest`.
 */
export const mergeByPosition = (
  own: readonly RecordedEvent[],
  foreign: readonly RecordedEvent[],
): { merged: RecordedEvent[]; rest: RecordedEvent[] } => {
  const pending = [...foreign].sort((a, b) => (a.position < b.position ? -1 : 1));
  const merged: RecordedEvent[] = [];
  let k = 0;
  for (const e of own) {
    while (k < pending.length && pending[k].position < e.position) merged.push(pending[k++]);
    merged.push(e);
  }
  return { merged, rest: pending.slice(k) };
};

/** A fresh fold into an in-memory read-model database built from `projections`. */
export const createReplayFold = (projections: readonly Projection[]): ReplayFold => {
  const db = openReadModelDb(':memory:', 4 * 1024);
  migrateAll(db, projections);
  const applyBatch = createBatchApplier(db, 'replay', projections);
  // Bodies from the events folded (already read and opened), as the live side reads its log.
  const bodies = eventMessages();
  const queries = createConversationQueries(db, undefined, bodies);
  let foreign: RecordedEvent[] = [];
  /** Ids of every foreign event ever added: each is applied once at most. */
  const added = new Set<string>();
  let state = initialState();
  let last: RecordedEvent | null = null;
  return {
    apply(events) {
      if (events.length === 0) return;
      const { merged, rest } = mergeByPosition(events, foreign);
      foreign = rest;
      bodies.add(merged);
      applyBatch(merged, events[events.length - 1].position);
      for (const e of events) state = evolve(state, e);
      last = events[events.length - 1];
    },
    addForeign(events) {
      const fresh = events.filter((e) => !added.has(e.id));
      fresh.forEach((e) => added.add(e.id));
      foreign = [...foreign, ...fresh];
    },
    queries,
    state: () => state,
    last: () => last,
    dump: () => dumpReadModels(db, projections),
    close: () => db.close(),
  };
};
