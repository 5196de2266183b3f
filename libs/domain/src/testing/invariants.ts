/** Checks shared by the property and fixture tests. Tests only. */
import { type ConversationEvent } from '../events';
import { type Message } from '../messages';
import { pmapEntries } from '../persistent-map';
import { type ConversationState } from '../state';
import { checkTurn } from '../turn-rules';
import { parseMessages } from '../validate-message';

/** Freeze everything reachable, so any later mutation throws (spec files run in strict mode). */
export const deepFreeze = <T>(value: T): T => {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null || Object.isFrozen(v)) continue;
    Object.freeze(v);
    for (const key of Object.keys(v)) stack.push((v as Record<string, unknown>)[key]);
  }
  return value;
};

const sortedEntries = <V>(entries: Iterable<[string, V]>): [string, V][] =>
  [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** A canonical JSON picture of a state, comparable across time. */
export const stateSnapshot = (s: ConversationState): string =>
  JSON.stringify({
    ...s,
    messages: sortedEntries(pmapEntries(s.messages)),
    turns: sortedEntries(pmapEntries(s.turns)),
    checkpoints: sortedEntries(pmapEntries(s.checkpoints)),
  });

/** Provider rules over a whole transcript (root → some message): the invariant the tree keeps. */
export const transcriptProblems = (path: readonly Message[]): string[] => {
  const problems: string[] = [];
  path.forEach((m, i) => {
    const prev = path[i - 1];
    const next = path[i + 1];
    if (m.content.length === 0) problems.push(`${m.id}: empty`);
    if (m.role === 'system' && i !== 0) problems.push(`${m.id}: system not at root`);
    if (prev !== undefined && prev.role !== 'system' && prev.role === m.role) {
      problems.push(`${m.id}: ${m.role} after ${prev.role}`);
    }
    const calls = new Set(
      prev === undefined ? [] : prev.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])),
    );
    for (const b of m.content) {
      if (b.type === 'tool_result' && !calls.has(b.tool_use_id)) {
        problems.push(`${m.id}: orphan result ${b.tool_use_id}`);
      }
    }
    if (next !== undefined) {
      const answers = new Set(
        next.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])),
      );
      for (const b of m.content) {
        if (b.type === 'tool_use' && !answers.has(b.id))
          problems.push(`${m.id}: unanswered ${b.id}`);
      }
    }
  });
  return problems;
};

/** (f) Every TurnCommitted in a log: its messages parse and pass the turn rules. */
export const invalidCommittedTurns = (log: readonly ConversationEvent[]): string[] => {
  const byId = new Map<string, Message>();
  const problems: string[] = [];
  for (const e of log) {
    if (e.type === 'MessageAppended') byId.set(e.data.message.id, e.data.message);
    if (e.type !== 'TurnCommitted') continue;
    const inputs = e.data.messageIds.map((id) => {
      const { parentId: _p, turnId: _t, createdAt: _c, ...input } = byId.get(id) as Message;
      return input;
    });
    const parsed = parseMessages(JSON.parse(JSON.stringify(inputs)));
    if (!parsed.ok) problems.push(`${e.data.turnId}: ${JSON.stringify(parsed.errors)}`);
    const parent = e.data.parentId === null ? undefined : byId.get(e.data.parentId);
    const violations = checkTurn(inputs, {
      atRoot: e.data.parentId === null,
      continues: parent?.role === 'user',
    });
    if (violations.length > 0) problems.push(`${e.data.turnId}: ${JSON.stringify(violations)}`);
  }
  return problems;
};
