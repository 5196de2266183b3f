/** Commits imported conversations through the domain's decider (tests only). */
import { type Message } from '@arbor/domain';
import { invalidCommittedTurns, transcriptProblems } from '@arbor/domain/testing/invariants';
import {
  counterDeps,
  exec,
  messagesOf,
  newSession,
  type Session,
} from '@arbor/domain/testing/session';
import { branchPath } from '@arbor/domain';
import { pmapEntries } from '@arbor/domain';
import { type ImportedConversation } from '../types';

export interface Committed {
  session: Session;
  /** Error codes of the commands the decider refused. */
  failures: string[];
}

/** Every turn in order, then the tip move and checkpoints the import asks for. */
export const commitConversation = (c: ImportedConversation): Committed => {
  const session = newSession(counterDeps('gen'));
  const failures: string[] = [];
  const run = (command: Parameters<typeof exec>[1]) => {
    const d = exec(session, command);
    if (!d.ok) failures.push(`${command.type}: ${d.error.code} ${d.error.message}`);
  };
  run({ type: 'start', conversationId: 'imported', title: c.title });
  for (const t of c.turns) run({ type: 'commitTurn', parentId: t.parentId, messages: t.messages });
  if (c.tip !== null && session.state.tip !== c.tip) run({ type: 'moveTip', messageId: c.tip });
  for (const cp of c.checkpoints)
    run({ type: 'setCheckpoint', label: cp.label, messageId: cp.messageId });
  return { session, failures };
};

/** Problems of any root → turn-end path of the committed tree (empty when all are valid). */
export const treeProblems = (s: Session): string[] => {
  const problems = [...invalidCommittedTurns(s.log)];
  const messages = messagesOf(s.log);
  for (const [id, node] of pmapEntries(s.state.messages)) {
    if (!node.boundary) continue;
    const path = (branchPath(s.state, id) ?? []).map((m) => messages.get(m) as Message);
    problems.push(...transcriptProblems(path).map((p) => `${id}: ${p}`));
  }
  return problems;
};

/** Ids of the committed messages that end a turn on tool results (`MessageAppended.turnEnd`). */
export const toolResultTurnEnds = (s: Session): string[] =>
  s.log.flatMap((e) =>
    e.type === 'MessageAppended' && e.data.turnEnd === true ? [e.data.message.id] : [],
  );
