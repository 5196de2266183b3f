import { type Decision, type DecideDeps, type ForkCommand, type ResultOf } from '../commands';
import { type CompactionDecision, decisionMessageIds } from '../compaction';
import { domainError, type DomainError } from '../errors';
import { type ConversationEvent, event } from '../events';
import { canonicalJson } from '../fingerprint';
import { type Message } from '../messages';
import { pmapGet } from '../persistent-map';
import { stableId } from '../stable-id';
import {
  compactionsInForce,
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

/** Carried decisions keep the fork's first context byte-identical to the source's (warm cache). */
const carry = (
  d: CompactionDecision,
  idMap: Readonly<Record<string, string>>,
  id: string,
): CompactionDecision | null | undefined => {
  const on = (messageId: string) => idMap[messageId] !== undefined;
  switch (d.rung) {
    case 'elide': {
      const results = d.results.filter((r) => on(r.messageId));
      if (results.length === 0) return undefined;
      return { ...d, id, results: results.map((r) => ({ ...r, messageId: idMap[r.messageId] })) };
    }
    case 'strip_images': {
      const images = d.images.filter((i) => on(i.messageId));
      if (images.length === 0) return undefined;
      return { ...d, id, images: images.map((i) => ({ ...i, messageId: idMap[i.messageId] })) };
    }
    case 'snapshot':
    case 'summary':
    case 'drop': {
      const inside = d.coveredIds.filter(on).length;
      if (inside === 0) return undefined;
      if (inside < d.coveredIds.length) return null;
      return {
        ...d,
        id,
        fromId: idMap[d.fromId],
        toId: idMap[d.toId],
        coveredIds: d.coveredIds.map((m) => idMap[m]),
      };
    }
  }
};

const forkStream = (
  state: ConversationState,
  cmd: ForkCommand,
  forkConversationId: string,
  end: string,
  idFor: (name: readonly string[]) => string,
): { events: ConversationEvent[]; idMap: Record<string, string> } => {
  // Copied ids are derived from the fork's id: the same fork always copies to the same ids.
  const { messages, idMap } = forkCopy(cmd.path, (m) =>
    idFor(['fork-message', forkConversationId, m.id]),
  );
  const onPath = new Set(cmd.path.map((m) => m.id));
  const sourceConversationId = state.conversationId ?? '';
  const checkpoints = listCheckpoints(state)
    .filter((c) => isLiveCheckpoint(c) && onPath.has(c.messageId))
    .map((c) => event('CheckpointSet', { label: c.label, messageId: idMap[c.messageId] }));
  // Decisions in force on the copied path come along, remapped; the rest are dropped explicitly.
  const inForce = new Set(compactionsInForce(state).map((d) => d.id));
  const carried: CompactionDecision[] = [];
  const carriedIds: { sourceId: string; id: string; rung: CompactionDecision['rung'] }[] = [];
  const dropped: { id: string; rung: CompactionDecision['rung'] }[] = [];
  for (const d of state.compactions) {
    if (!decisionMessageIds(d).some((id) => onPath.has(id))) continue;
    const copy = inForce.has(d.id)
      ? carry(d, idMap, idFor(['fork-decision', forkConversationId, d.id]))
      : null;
    if (copy === undefined) continue;
    if (copy === null) dropped.push({ id: d.id, rung: d.rung });
    else {
      carried.push(copy);
      carriedIds.push({ sourceId: d.id, id: copy.id, rung: d.rung });
    }
  }
  const events: ConversationEvent[] = [
    event('ConversationStarted', {
      conversationId: forkConversationId,
      title: cmd.title === undefined ? state.title : cmd.title,
      metadata: cmd.metadata ?? {},
      forkedFrom: { conversationId: sourceConversationId, messageId: end },
    }),
    event('ForkedFrom', {
      sourceConversationId,
      sourceMessageId: end,
      idMap,
      droppedCompactions: dropped,
      carriedCompactions: carriedIds,
      lineage: state.lineage ?? sourceConversationId,
    }),
    // A copy of a turn end on tool results stays a turn end (see MessageAppended.turnEnd).
    ...messages.map((message, i) =>
      message.role === 'user' && getNode(state, cmd.path[i].id)?.boundary === true
        ? event('MessageAppended', { message, turnEnd: true })
        : event('MessageAppended', { message }),
    ),
    ...checkpoints,
    ...carried.map((decision) => event('CompactionApplied', { decision })),
    event('TipMoved', { from: null, to: idMap[end], reason: 'fork' }),
  ];
  return { events, idMap };
};

/** A retry on the same revision names the same fork; once recorded, the revision moves on. */
export const derivedForkId = (
  state: ConversationState,
  cmd: Pick<ForkCommand, 'title' | 'metadata'>,
  end: string,
  idFor: (name: readonly string[]) => string = stableId,
): string =>
  idFor([
    'fork',
    state.conversationId ?? '',
    String(state.revision),
    end,
    canonicalJson({ title: cmd.title, metadata: cmd.metadata }),
  ]);

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
  const idFor = deps.stableId ?? stableId;
  const forkConversationId = cmd.forkConversationId ?? derivedForkId(state, cmd, end, idFor);
  if (forkConversationId === state.conversationId) {
    return fail('invalid_command', 'a fork needs a new conversation id');
  }
  const recorded = pmapGet(state.forks, forkConversationId);
  if (recorded !== undefined && recorded !== end) {
    return fail('conversation_exists', 'this fork id is taken by a fork of another message', {
      forkConversationId,
      fromMessageId: recorded,
    });
  }
  const fork = forkStream(state, cmd, forkConversationId, end, idFor);
  const result = {
    forkConversationId,
    idMap: fork.idMap,
    forkEvents: fork.events,
    forkRevision: fork.events.length - 1,
  };
  if (recorded !== undefined) {
    return succeed([], { ...result, revision: state.revision, replayed: true });
  }
  const forked = event('ConversationForked', {
    forkConversationId,
    fromMessageId: end,
    idMap: fork.idMap,
  });
  return succeed([forked], { ...result, revision: state.revision + 1, replayed: false });
};
