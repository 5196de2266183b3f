import fc from 'fast-check';
import { conversationStream, type RecordedEvent } from '@arbor/event-store';
import {
  counterDeps,
  exec,
  messagesOf,
  newSession,
  ok,
  qa,
  type Session,
  toolTurn,
} from '@arbor/domain/testing/session';
import { createBatchApplier, migrateAll } from '../projector';
import { openReadModelDb } from '../read-model-db';
import { conversationsProjection, createConversationQueries } from './index';
import { createMessageCache } from './message-cache';

type Op = { kind: 'turn'; from: number; tool: boolean } | { kind: 'move'; to: number };

const arbOps = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('turn' as const), from: fc.nat(), tool: fc.boolean() }),
    fc.record({ kind: fc.constant('move' as const), to: fc.nat() }),
  ),
  { maxLength: 25 },
);

const play = (ops: readonly Op[]): Session => {
  const s = newSession(counterDeps('m'));
  ok(s, { type: 'start', conversationId: 'c' });
  const ends: string[] = [];
  ops.forEach((op, i) => {
    if (op.kind === 'turn') {
      const parentId =
        ends.length === 0 ? null : op.from % 3 === 0 ? s.state.tip : ends[op.from % ends.length];
      const messages = op.tool ? toolTurn(`q${i}`, `tool${i}`) : qa(`q${i}`, `a${i}`);
      const d = exec(s, { type: 'commitTurn', parentId, messages });
      if (d.ok) ends.push(d.result.tip);
    } else {
      const ids = [...messagesOf(s.log).keys()];
      if (ids.length > 0) ok(s, { type: 'moveTip', messageId: ids[op.to % ids.length] });
    }
  });
  return s;
};

const recorded = (s: Session): RecordedEvent[] =>
  s.log.map((e, i) => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    streamName: conversationStream('t', 'c'),
    revision: BigInt(i),
    position: BigInt(i + 1),
    type: e.type,
    data: e.data,
    metadata: { tenantId: 't', actor: 'spec', timestamp: '2026-01-01T00:00:00.000Z' },
    created: new Date(0),
  }));

/** Projects `events` in two halves, so a read can happen between them. */
const projector = () => {
  const db = openReadModelDb(':memory:');
  migrateAll(db, [conversationsProjection]);
  const apply = createBatchApplier(db, 'spec', [conversationsProjection]);
  return {
    db,
    apply: (events: readonly RecordedEvent[]) => {
      if (events.length > 0) apply(events, events[events.length - 1].position);
    },
  };
};

const pathTo = (s: Session, tip: string | null) => {
  const byId = messagesOf(s.log);
  const out = [];
  for (let id = tip; id !== null; id = byId.get(id)?.parentId ?? null) {
    const m = byId.get(id);
    if (m) out.unshift(m);
  }
  return out;
};

const readBranch = (
  queries: ReturnType<typeof createConversationQueries>,
  pageSize: number,
): unknown[] => {
  const out: unknown[] = [];
  for (let from: number | null = 0; from !== null;) {
    const page = queries.activeBranchPage('t', 'c', from, pageSize);
    out.push(...page.items);
    from = page.nextDepth;
  }
  return out;
};

describe('conversation queries with the message cache', () => {
  it('reads the active branch as the log has it, cold, warm or half cached, after any moves', () => {
    fc.assert(
      fc.property(
        arbOps,
        arbOps,
        fc.integer({ min: 1, max: 9 }),
        fc.constantFrom(0, 3, 20_000),
        (first, then, pageSize, capacity) => {
          const before = play(first);
          const after = play([...first, ...then]);
          const events = recorded(after);
          const p = projector();
          const queries = createConversationQueries(p.db, { cachedMessages: capacity });
          p.apply(events.slice(0, before.log.length));
          expect(readBranch(queries, pageSize)).toEqual(pathTo(before, before.state.tip));
          // More turns and moves land; what was cached stays right, what is new is read.
          p.apply(events.slice(before.log.length));
          const expected = pathTo(after, after.state.tip);
          expect(readBranch(queries, pageSize)).toEqual(expected);
          expect(readBranch(queries, pageSize)).toEqual(expected);
          for (const m of expected) expect(queries.getMessage('t', 'c', m.id)).toEqual(m);
          p.db.close();
        },
      ),
      { numRuns: 100 },
    );
  });

  it('hands out one frozen object per cached message', () => {
    const s = play([{ kind: 'turn', from: 0, tool: true }]);
    const p = projector();
    p.apply(recorded(s));
    const queries = createConversationQueries(p.db);
    const [a] = queries.activeBranchPage('t', 'c', 0, 10).items;
    const [b] = queries.activeBranchPage('t', 'c', 0, 10).items;
    expect(b).toBe(a);
    expect(queries.getMessage('t', 'c', a.id)).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(Object.isFrozen(a.content[0])).toBe(true);
    expect(() => {
      (a.content as unknown[]).push({ type: 'text', text: 'x' });
    }).toThrow(TypeError);
    p.db.close();
  });

  it('scopes the cache by tenant and conversation', () => {
    const s = play([{ kind: 'turn', from: 0, tool: false }]);
    const p = projector();
    p.apply(recorded(s));
    const queries = createConversationQueries(p.db);
    const [m] = queries.activeBranchPage('t', 'c', 0, 10).items;
    expect(queries.getMessage('t', 'c', m.id)).not.toBeNull();
    expect(queries.getMessage('other', 'c', m.id)).toBeNull();
    expect(queries.getMessage('t', 'other', m.id)).toBeNull();
    p.db.close();
  });
});

describe('createMessageCache', () => {
  const body = (n: number) => JSON.stringify({ id: `m${n}`, n });

  it('keeps at most its capacity, evicting the least recently used', () => {
    const cache = createMessageCache(3);
    for (const n of [1, 2, 3]) cache.put('t', 'c', `m${n}`, body(n));
    expect(cache.get('t', 'c', 'm1')).toBeDefined(); // m1 is now the most recent
    cache.put('t', 'c', 'm4', body(4));
    expect(cache.size).toBe(3);
    expect(cache.get('t', 'c', 'm2')).toBeUndefined();
    expect(cache.get('t', 'c', 'm1')).toMatchObject({ n: 1 });
    expect(cache.get('t', 'c', 'm4')).toMatchObject({ n: 4 });
  });

  it('with capacity 0 keeps nothing but still parses', () => {
    const cache = createMessageCache(0);
    expect(cache.put('t', 'c', 'm1', body(1))).toMatchObject({ n: 1 });
    expect(cache.size).toBe(0);
    expect(cache.get('t', 'c', 'm1')).toBeUndefined();
  });
});
