import fc from 'fast-check';
import { conversationStream, type RecordedEvent } from '@arbor/event-store';
import { type ConversationEvent } from '@arbor/domain';
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
import { createBatchApplier, dumpReadModels, migrateAll } from '../projector';
import { openReadModelDb } from '../read-model-db';
import { conversationsProjection } from './index';

type Op = { kind: 'turn'; from: number; tool: boolean } | { kind: 'move'; to: number };

const arbOps = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('turn' as const), from: fc.nat(), tool: fc.boolean() }),
    fc.record({ kind: fc.constant('move' as const), to: fc.nat() }),
  ),
  { maxLength: 30 },
);

/** Commits turns (on the tip, or branching from an earlier turn's end) and moves the tip. */
const play = (ops: readonly Op[]): Session => {
  const s = newSession(counterDeps('m'));
  ok(s, { type: 'start', conversationId: 'c' });
  const turnEnds: string[] = [];
  ops.forEach((op, i) => {
    if (op.kind === 'turn') {
      const parentId =
        turnEnds.length === 0
          ? null
          : op.from % 3 === 0
            ? s.state.tip
            : turnEnds[op.from % turnEnds.length];
      const messages = op.tool ? toolTurn(`q${i}`, `tool${i}`) : qa(`q${i}`, `a${i}`);
      // From a tip moved into the middle of a turn the domain refuses the turn: skip it.
      const d = exec(s, { type: 'commitTurn', parentId, messages });
      if (d.ok) turnEnds.push(d.result.tip);
    } else {
      const ids = [...messagesOf(s.log).keys()];
      if (ids.length > 0) ok(s, { type: 'moveTip', messageId: ids[op.to % ids.length] });
    }
  });
  return s;
};

const recorded = (log: readonly ConversationEvent[]): RecordedEvent[] =>
  log.map((e, i) => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    streamName: conversationStream('t', 'c'),
    revision: BigInt(i),
    position: BigInt(i + 1),
    type: e.type,
    data: e.data,
    metadata: {
      tenantId: 't',
      actor: 'spec',
      timestamp: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.000Z`,
    },
    created: new Date(0),
  }));

/** Applies `events` in batches of the given sizes (cycled), each batch in one transaction. */
const project = (events: readonly RecordedEvent[], sizes: readonly number[]) => {
  const db = openReadModelDb(':memory:');
  migrateAll(db, [conversationsProjection]);
  const apply = createBatchApplier(db, 'spec', [conversationsProjection]);
  for (let i = 0, k = 0; i < events.length; k++) {
    const batch = events.slice(i, i + sizes[k % sizes.length]);
    apply(batch, batch[batch.length - 1].position);
    i += batch.length;
  }
  return db;
};

/** The path root → tip by parent links: what the active branch means. */
const pathTo = (s: Session): string[] => {
  const byId = messagesOf(s.log);
  const path: string[] = [];
  for (let id = s.state.tip; id !== null; id = byId.get(id)?.parentId ?? null) path.unshift(id);
  return path;
};

describe('conversation projection', () => {
  it('materializes the active branch as the path root → tip, whatever the moves and branches', () => {
    fc.assert(
      fc.property(
        arbOps,
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1 }),
        (ops, sizes) => {
          const s = play(ops);
          const db = project(recorded(s.log), sizes);
          const branch = db
            .prepare(
              `SELECT depth, message_id FROM rm_active_branch WHERE tenant_id = 't' AND conversation_id = 'c' ORDER BY depth`,
            )
            .all() as { depth: number; message_id: string }[];
          expect(branch.map((r) => r.message_id)).toEqual(pathTo(s));
          expect(branch.map((r) => r.depth)).toEqual(branch.map((_, i) => i));
          const row = db
            .prepare(`SELECT tip, message_count, turn_count, revision FROM rm_conversations`)
            .get() as {
            tip: string | null;
            message_count: number;
            turn_count: number;
            revision: number;
          };
          expect(row).toEqual({
            tip: s.state.tip,
            message_count: messagesOf(s.log).size,
            turn_count: s.state.turnCount,
            revision: s.log.length - 1,
          });
          db.close();
        },
      ),
      { numRuns: 150 },
    );
  });

  it('writes the same rows however the events are batched', () => {
    fc.assert(
      fc.property(
        arbOps,
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1 }),
        (ops, sizes) => {
          const events = recorded(play(ops).log);
          const one = project(events, [events.length]);
          const split = project(events, sizes);
          expect(dumpReadModels(split, [conversationsProjection])).toBe(
            dumpReadModels(one, [conversationsProjection]),
          );
          one.close();
          split.close();
        },
      ),
      { numRuns: 100 },
    );
  });
});
