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
import { domainError, type DomainError } from '../errors';
import { badId, fail, failWith, staleTip, succeed } from './common';

type Result = ResultOf<'commitTurn'>;

/** What makes two commits "the same turn": the parent and the messages as sent. */
export const turnContentHash = (
  parentId: string | null,
  messages: readonly MessageInput[],
): string => fingerprint({ parentId, messages });

const invalidTurn = (violations: TurnViolation[], what = 'turn'): DomainError =>
  domainError('invalid_turn', `the ${what} breaks the turn rules`, { violations });

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

/** A null parent only on an empty conversation or branch (a new root); else the end of a turn. */
const parentError = (
  state: ConversationState,
  parentId: string | null,
  what: string,
): DomainError | null => {
  if (parentId === null) {
    if (messageCount(state) === 0 || state.tip === null) return null;
    return invalidTurn(
      [
        {
          path: 'parentId',
          code: 'root_exists',
          message:
            'only the first turn (or one on an empty branch) has no parent; chain from an existing message',
        },
      ],
      what,
    );
  }
  const parent = getNode(state, parentId);
  if (parent === undefined) {
    return domainError('parent_not_found', 'no such parent message in this conversation', {
      parentId,
    });
  }
  if (!isBranchable(parent)) {
    return domainError('not_a_turn_boundary', 'a turn must chain from the end of a turn', {
      messageId: parentId,
    });
  }
  return null;
};

/** The one validation path of a turn and of a draft (`open`: may end anywhere, calls may wait). */
export const turnError = (
  state: ConversationState,
  parentId: string | null,
  messages: readonly MessageInput[],
  open = false,
): DomainError | null => {
  const what = open ? 'draft' : 'turn';
  const where = parentError(state, parentId, what);
  if (where !== null) return where;
  const last = messages.length - 1;
  const violations = checkTurn(messages, {
    atRoot: parentId === null,
    continues: parentId !== null && continuesAfter(getNode(state, parentId)),
    idExists: (id) => hasMessage(state, id),
  }).filter(
    (v) =>
      !open ||
      (v.code !== 'must_end_with_assistant' &&
        !(v.code === 'unanswered_tool_use' && v.path.startsWith(`messages[${last}].`))),
  );
  return violations.length > 0 ? invalidTurn(violations, what) : null;
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
  const invalid = turnError(state, cmd.parentId, cmd.messages);
  if (invalid !== null) return failWith(invalid);

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
