import type Database from 'better-sqlite3';
import { type Message } from '@arbor/domain';
import {
  conversationStream,
  type EventStore,
  readStreamData,
  type RecordedEvent,
  type StreamData,
} from '@arbor/event-store';

/** Rows keep the tree and each message's event revision; the body stays in the log, stored once. */
export interface MessageSource {
  messagesAt(
    tenantId: string,
    conversationId: string,
    revisions: readonly number[],
  ): Promise<Map<number, Message>>;
}

/** Revisions closer than this are read as one range (the events between are few and small). */
const MAX_GAP = 16;

const messageOf = (e: StreamData): Message | undefined =>
  e.type === 'MessageAppended' ? (e.data as { message?: Message }).message : undefined;

/** Read through `store`'s own path, so an erased conversation's content no longer opens. */
export const logMessages = (store: EventStore): MessageSource => ({
  async messagesAt(tenantId, conversationId, revisions) {
    const out = new Map<number, Message>();
    if (revisions.length === 0) return out;
    const sorted = [...revisions].sort((a, b) => a - b);
    const ranges: [number, number][] = [];
    for (const r of sorted) {
      const last = ranges[ranges.length - 1];
      if (last !== undefined && r - last[1] <= MAX_GAP) last[1] = r;
      else ranges.push([r, r]);
    }
    const stream = conversationStream(tenantId, conversationId);
    const wanted = new Set(sorted);
    const read = await Promise.all(
      ranges.map(([from, to]) =>
        readStreamData(store, stream, { fromRevision: BigInt(from), maxCount: to - from + 1 }),
      ),
    );
    for (const events of read) {
      for (const e of events) {
        const revision = Number(e.revision);
        const m = messageOf(e);
        if (m !== undefined && wanted.has(revision)) out.set(revision, m);
      }
    }
    return out;
  },
});

/** Messages from events a replay already holds in memory. */
export const eventMessages = () => {
  const byStream = new Map<string, Map<number, Message>>();
  return {
    add(events: readonly RecordedEvent[]): void {
      for (const e of events) {
        const m = messageOf(e);
        if (m === undefined) continue;
        let revisions = byStream.get(e.streamName);
        if (revisions === undefined) byStream.set(e.streamName, (revisions = new Map()));
        revisions.set(Number(e.revision), m);
      }
    },
    async messagesAt(tenantId: string, conversationId: string, revisions: readonly number[]) {
      const known = byStream.get(conversationStream(tenantId, conversationId));
      const out = new Map<number, Message>();
      for (const r of revisions) {
        const m = known?.get(r);
        if (m !== undefined) out.set(r, m);
      }
      return out;
    },
  } satisfies MessageSource & { add(events: readonly RecordedEvent[]): void };
};

/** Binds a read-model database to the log it was projected from (its rows name its revisions). */
const bound = new WeakMap<Database.Database, MessageSource>();

export const bindMessageSource = (db: Database.Database, source: MessageSource): void => {
  bound.set(db, source);
};

export const boundMessageSource = (db: Database.Database): MessageSource | undefined =>
  bound.get(db);
