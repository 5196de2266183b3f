import { type CommitTurnCommand, type Decision, type DecideDeps, type ResultOf } from '../commands';
import { event, type MessageAppended } from '../events';
import { fingerprint } from '../fingerprint';
import { type Message, type MessageInput } from '../messages';
import {
  type ConversationState,
  continuesAfter,
  getNode,
  getTurn,
  hasMessage,
  isBranchable,
  messageCount,
} from '../state';
import { checkTurn, type TurnViolation } from '../turn-rules';
import { badId, fail, failWith, staleTip, succeed } from './common';

type Result = ResultOf<'commitTurn'>;

/** What makes two commits "the same turn": the parent and the messages as sent. */
export const turnContentHash = (
  parentId: string | null,
  messages: readonly MessageInput[],
): string => fingerprint({ parentId, messages });

const invalidTurn = (violations: TurnViolation[]): Decision<Result> =>
  fail('invalid_turn', 'the turn breaks the turn rules', { violations });

/** Replay of a known turnId: the original result, or a conflict when the content differs. */
const replay = (
  state: ConversationState,
  turnId: string,
  hash: string,
): Decision<Result> | null => {
  const turn = getTurn(state, turnId);
  if (turn === undefined) return null;
  if (turn.contentHash !== hash) {
    return fail('turn_id_conflict', 'this turnId was already committed with other content', {
      turnId,
    });
  }
  const { messageIds, tip, revision } = turn;
  return succeed([], { turnId, messageIds, tip, revision, replayed: true });
};

/** Where the turn may hang: null parent only on an empty conversation, else the end of a turn. */
const checkParent = (
  state: ConversationState,
  parentId: string | null,
): Decision<Result> | null => {
  if (parentId === null) {
    if (messageCount(state) === 0) return null;
    return invalidTurn([
      {
        path: 'parentId',
        code: 'root_exists',
        message: 'only the first turn has no parent; chain from an existing message',
      },
    ]);
  }
  const parent = getNode(state, parentId);
  if (parent === undefined) {
    return fail('parent_not_found', 'no such parent message in this conversation', { parentId });
  }
  if (!isBranchable(parent)) {
    return fail('not_a_turn_boundary', 'a turn must chain from the end of a turn', {
      messageId: parentId,
    });
  }
  return null;
};

const toMessage = (
  input: MessageInput,
  id: string,
  parentId: string | null,
  turnId: string,
  createdAt: string,
): Message => {
  const { id: _given, ...rest } = input;
  return { id, parentId, ...rest, turnId, createdAt };
};

/** Commit a whole turn atomically: its MessageAppended events, then one TurnCommitted. */
export const decideCommitTurn = (
  cmd: CommitTurnCommand,
  state: ConversationState,
  deps: DecideDeps,
): Decision<Result> => {
  const bad = badId('turnId', cmd.turnId);
  if (bad !== null) return failWith(bad);
  const hash = turnContentHash(cmd.parentId, cmd.messages);
  const replayed = cmd.turnId === undefined ? null : replay(state, cmd.turnId, hash);
  if (replayed !== null) return replayed;
  const stale = staleTip(state, cmd.expectedTip);
  if (stale !== null) return failWith(stale);
  const parentProblem = checkParent(state, cmd.parentId);
  if (parentProblem !== null) return parentProblem;
  const violations = checkTurn(cmd.messages, {
    atRoot: cmd.parentId === null,
    continues: cmd.parentId !== null && continuesAfter(getNode(state, cmd.parentId)),
    idExists: (id) => hasMessage(state, id),
  });
  if (violations.length > 0) return invalidTurn(violations);

  const turnId = cmd.turnId ?? deps.newId();
  const createdAt = deps.now();
  const appended: MessageAppended[] = [];
  let parentId = cmd.parentId;
  cmd.messages.forEach((input, i) => {
    const message = toMessage(input, input.id ?? deps.newId(), parentId, turnId, createdAt);
    // A turn ending on tool results says so (an assistant answer ends its turn by itself).
    const closes = i === cmd.messages.length - 1 && message.role === 'user';
    appended.push(event('MessageAppended', closes ? { message, turnEnd: true } : { message }));
    parentId = message.id;
  });
  const messageIds = appended.map((e) => e.data.message.id);
  const tip = messageIds[messageIds.length - 1];
  const committed = event('TurnCommitted', {
    turnId,
    parentId: cmd.parentId,
    messageIds,
    tipBefore: state.tip,
    tip,
    contentHash: hash,
  });
  const events = [...appended, committed];
  return succeed(events, {
    turnId,
    messageIds,
    tip,
    revision: state.revision + events.length,
    replayed: false,
  });
};
