import { type Decision, type DecideDeps, type ForkCommand, type ResultOf } from '../commands';
import { domainError, type DomainError } from '../errors';
import { type ConversationEvent, event } from '../events';
import { type Message } from '../messages';
import {
  type ConversationState,
  getNode,
  isBranchable,
  isLiveCheckpoint,
  listCheckpoints,
} from '../state';
import { branchPath, forkCopy } from '../tree';
import { badId, fail, failWith, succeed } from './common';

type Result = ResultOf<'fork'>;

/** The message ids (root → end) whose full messages a fork command must carry. */
export const forkPathIds = (state: ConversationState, messageId?: string): string[] | null => {
  const end = messageId ?? state.tip;
  return end === null ? null : branchPath(state, end);
};

const pathMismatch = (path: readonly Message[], ids: readonly string[]): DomainError | null => {
  const same =
    path.length === ids.length &&
    path.every((m, i) => m.id === ids[i] && m.parentId === (i === 0 ? null : ids[i - 1]));
  return same
    ? null
    : domainError('invalid_command', 'path must be the messages root → end of this conversation', {
        expectedIds: ids,
      });
};

/** The new stream: started with lineage, the copied path, remapped checkpoints, then its tip. */
const forkStream = (
  state: ConversationState,
  cmd: ForkCommand,
  forkConversationId: string,
  end: string,
  deps: DecideDeps,
): { events: ConversationEvent[]; idMap: Record<string, string> } => {
  const { messages, idMap } = forkCopy(cmd.path, deps.newId);
  const onPath = new Set(cmd.path.map((m) => m.id));
  const sourceConversationId = state.conversationId ?? '';
  const checkpoints = listCheckpoints(state)
    .filter((c) => isLiveCheckpoint(c) && onPath.has(c.messageId))
    .map((c) => event('CheckpointSet', { label: c.label, messageId: idMap[c.messageId] }));
  const events: ConversationEvent[] = [
    event('ConversationStarted', {
      conversationId: forkConversationId,
      title: cmd.title === undefined ? state.title : cmd.title,
      metadata: cmd.metadata ?? {},
      forkedFrom: { conversationId: sourceConversationId, messageId: end },
    }),
    event('ForkedFrom', { sourceConversationId, sourceMessageId: end, idMap }),
    ...messages.map((message) => event('MessageAppended', { message })),
    ...checkpoints,
    event('TipMoved', { from: null, to: idMap[end], reason: 'fork' }),
  ];
  return { events, idMap };
};

/**
 * Fork the path ending at `messageId` (default the tip) into a new conversation with fresh ids.
 * `events` go on the source stream (one ConversationForked); `result.forkEvents` open the new one.
 */
export const decideFork = (
  cmd: ForkCommand,
  state: ConversationState,
  deps: DecideDeps,
): Decision<Result> => {
  const bad = badId('forkConversationId', cmd.forkConversationId);
  if (bad !== null) return failWith(bad);
  const end = cmd.messageId ?? state.tip;
  const node = end === null ? undefined : getNode(state, end);
  if (end === null || node === undefined) {
    return fail('message_not_found', 'nothing to fork at that message', { messageId: end });
  }
  if (!isBranchable(node)) {
    return fail('not_a_turn_boundary', 'a fork must end at the end of a turn', { messageId: end });
  }
  const mismatch = pathMismatch(cmd.path, forkPathIds(state, end) ?? []);
  if (mismatch !== null) return failWith(mismatch);
  const forkConversationId = cmd.forkConversationId ?? deps.newId();
  if (forkConversationId === state.conversationId) {
    return fail('invalid_command', 'a fork needs a new conversation id');
  }
  const fork = forkStream(state, cmd, forkConversationId, end, deps);
  const forked = event('ConversationForked', {
    forkConversationId,
    fromMessageId: end,
    idMap: fork.idMap,
  });
  return succeed([forked], {
    forkConversationId,
    idMap: fork.idMap,
    forkEvents: fork.events,
    forkRevision: fork.events.length - 1,
    revision: state.revision + 1,
  });
};
