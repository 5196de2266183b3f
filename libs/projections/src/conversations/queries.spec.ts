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

describe('conversation queries', () => {
  it('reads the active branch page by page as the log has it, before and after more turns and moves', () => {
    fc.assert(
      fc.property(arbOps, arbOps, fc.integer({ min: 1, max: 9 }), (first, then, pageSize) => {
        const before = play(first);
        const after = play([...first, ...then]);
        const events = recorded(after);
        const p = projector();
        const queries = createConversationQueries(p.db);
        p.apply(events.slice(0, before.log.length));
        expect(readBranch(queries, pageSize)).toEqual(pathTo(before, before.state.tip));
        // More turns and moves land: the same queries object reads the new branch.
        p.apply(events.slice(before.log.length));
        const expected = pathTo(after, after.state.tip);
        expect(readBranch(queries, pageSize)).toEqual(expected);
        expect(readBranch(queries, pageSize)).toEqual(expected);
        for (const m of expected) expect(queries.getMessage('t', 'c', m.id)).toEqual(m);
        p.db.close();
      }),
      { numRuns: 100 },
    );
  });

  it('scopes single messages by tenant and conversation', () => {
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
