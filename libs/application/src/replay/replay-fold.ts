// Replay = the live fold stopped at a revision: the same projections, into an in-memory database.
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
  /** Applies the next own events, each after the foreign events recorded before it in `$all`. */
  apply(events: readonly RecordedEvent[]): void;
  addForeign(events: readonly RecordedEvent[]): void;
  readonly queries: ConversationQueries;
  state(): ConversationState;
  last(): RecordedEvent | null;
  dump(): string;
  close(): void;
}

/** Foreign events after the last own event did not exist yet: left out, returned as `rest`. */
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

export const createReplayFold = (projections: readonly Projection[]): ReplayFold => {
  const db = openReadModelDb(':memory:', 4 * 1024);
  migrateAll(db, projections);
  const applyBatch = createBatchApplier(db, 'replay', projections);
  // Bodies from the events folded (already read and opened), as the live side reads its log.
  const bodies = eventMessages();
  const queries = createConversationQueries(db, undefined, bodies);
  let foreign: RecordedEvent[] = [];
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
