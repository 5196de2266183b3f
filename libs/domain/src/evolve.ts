/** Pure: no state object is ever changed; unknown event types only advance the revision. */
import { type ConversationEvent, isConversationEvent } from './events';
import { pmapGet, pmapSet } from './persistent-map';
import { type Message } from './messages';
import {
  CALIBRATION_WINDOW,
  type CalibrationSample,
  type CheckpointRecord,
  type ConversationState,
  initialState,
  nodeOf,
} from './state';

export interface AnyEvent {
  readonly type: string;
  readonly data: unknown;
}

const setCheckpoint = (s: ConversationState, c: CheckpointRecord): ConversationState => ({
  ...s,
  checkpoints: pmapSet(s.checkpoints, c.label, c),
});

const apply = (s: ConversationState, e: ConversationEvent): ConversationState => {
  switch (e.type) {
    case 'ConversationStarted':
      return {
        ...s,
        status: 'active',
        conversationId: e.data.conversationId,
        title: e.data.title,
        forkedFrom: e.data.forkedFrom,
      };
    case 'MessageAppended': {
      const m = e.data.message;
      const rootId = s.rootId === null && m.parentId === null ? m.id : s.rootId;
      const node = nodeOf(m, e.data.turnEnd === true);
      return calibrateFrom({ ...s, rootId, messages: pmapSet(s.messages, m.id, node) }, m);
    }
    case 'TurnCommitted': {
      const { turnId, parentId, messageIds, tip, contentHash } = e.data;
      const record = { contentHash, parentId, messageIds, tip, revision: s.revision };
      return { ...s, tip, turnCount: s.turnCount + 1, turns: pmapSet(s.turns, turnId, record) };
    }
    case 'TipMoved':
      return { ...s, tip: e.data.to };
    case 'CheckpointSet':
      return setCheckpoint(s, {
        label: e.data.label,
        messageId: e.data.messageId,
        status: 'active',
      });
    case 'CheckpointRewound': {
      const c = pmapGet(s.checkpoints, e.data.label);
      return c === undefined ? s : setCheckpoint(s, { ...c, status: 'rewound' });
    }
    case 'CheckpointDropped': {
      const { label, messageId, reason } = e.data;
      return setCheckpoint(s, { label, messageId, status: 'dropped', reason });
    }
    case 'RunResumed':
      return { ...s, resume: e.data };
    case 'TurnFailed': {
      const { failureId, input, error } = e.data;
      return { ...s, lastFailure: { failureId, input, error, turnCountAt: s.turnCount } };
    }
    case 'DraftSaved': {
      const { draftId, parentId, messages } = e.data;
      return { ...s, draft: { draftId, parentId, messages, revision: s.revision } };
    }
    case 'DraftDiscarded': {
      const { draftId, reason, turnId, restHash } = e.data;
      const gone = s.draft?.draftId === draftId ? { ...s, draft: null } : s;
      if (reason !== 'committed' || turnId === undefined || restHash === undefined) return gone;
      const record = { restHash, revision: s.revision };
      return { ...gone, draftCommits: pmapSet(s.draftCommits, turnId, record) };
    }
    case 'CompactionApplied':
      return { ...s, compactions: [...s.compactions, e.data.decision] };
    case 'CompactionRevoked':
      return {
        ...s,
        revokedCompactions: [...s.revokedCompactions, e.data.decisionId],
        revokedSinceContext: [...s.revokedSinceContext, e.data.decisionId],
      };
    case 'BranchSummarized':
      return { ...s, branchSummaries: [...s.branchSummaries, e.data] };
    case 'ContextAssembled': {
      const { request, rawTokens, overflowSample } = e.data;
      const withSample =
        overflowSample === null
          ? s
          : addSample(s, { provider: request.provider, ...overflowSample });
      return {
        ...withSample,
        pendingContext: { provider: request.provider, estimatedTokens: rawTokens },
        lastContextTip: e.data.tip,
        priorContextTip: e.data.tip === s.lastContextTip ? s.priorContextTip : s.lastContextTip,
        revokedSinceContext: s.revokedSinceContext.length === 0 ? s.revokedSinceContext : [],
      };
    }
    case 'ConversationForked':
      return { ...s, forks: pmapSet(s.forks, e.data.forkConversationId, e.data.fromMessageId) };
    case 'ForkedFrom':
      return { ...s, lineage: e.data.lineage ?? e.data.sourceConversationId };
    case 'ConversationErased':
      // What the state held of content (title, failed input, draft) was sealed under the key.
      return { ...s, status: 'erased', title: null, lastFailure: null, draft: null };
  }
};

const addSample = (s: ConversationState, sample: CalibrationSample): ConversationState => ({
  ...s,
  calibration: [...s.calibration, sample].slice(-CALIBRATION_WINDOW),
});

/** The first assistant message after a context answers it: a calibration sample. */
const calibrateFrom = (s: ConversationState, m: Message): ConversationState => {
  const u = m.usage;
  if (m.role !== 'assistant' || s.pendingContext === null || u?.input_tokens === undefined)
    return s;
  const measured =
    u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
  const sample = {
    provider: s.pendingContext.provider,
    estimated: s.pendingContext.estimatedTokens,
    measured,
  };
  return { ...addSample(s, sample), pendingContext: null };
};

export const evolve = (state: ConversationState, event: AnyEvent): ConversationState => {
  const next: ConversationState = { ...state, revision: state.revision + 1 };
  return isConversationEvent(event) ? apply(next, event) : next;
};

export const foldEvents = (
  events: Iterable<AnyEvent>,
  state: ConversationState = initialState(),
): ConversationState => {
  let s = state;
  for (const e of events) s = evolve(s, e);
  return s;
};
