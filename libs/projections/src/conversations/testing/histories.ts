/** Test helpers shared by the conversations projection's specs: random histories, as the log. */
import fc from 'fast-check';
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
import { conversationStream, type RecordedEvent } from '@arbor/event-store';

export type Op = { kind: 'turn'; from: number; tool: boolean } | { kind: 'move'; to: number };

export const arbOps = (maxLength: number): fc.Arbitrary<Op[]> =>
  fc.array(
    fc.oneof(
      fc.record({ kind: fc.constant('turn' as const), from: fc.nat(), tool: fc.boolean() }),
      fc.record({ kind: fc.constant('move' as const), to: fc.nat() }),
    ),
    { maxLength },
  );

/**
 * Conversation `c`: commits turns (on the tip, or branching from an earlier turn's end) and moves
 * the tip. Deterministic: the same ops give the same log (ids from a counter).
 */
export const play = (ops: readonly Op[]): Session => {
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

/** The log as the store would record it in stream `conv-t.c`, positions from 1. */
export const recorded = (log: readonly ConversationEvent[]): RecordedEvent[] =>
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
