/** Only what the rules need, never content; maps are persistent, so every state stays valid. */
import { type BranchSummary } from './branch-summary';
import { type CompactionDecision } from './compaction';
import { type ForkOrigin, type RunResumed } from './events';
import { type Message, type MessageInput, type Role } from './messages';
import { pmapEmpty, pmapGet, pmapHas, pmapValues, type PMap } from './persistent-map';
import { estimateTokens } from './token-estimate';
import { toolResultIdsOf, toolUseIdsOf } from './turn-rules';

export interface MessageNode {
  readonly parentId: string | null;
  readonly role: Role;
  /**
   * Ends a turn: an assistant message without tool_use, or a user message whose tool results
   * closed a turn (see turn-rules.ts).
   */
  readonly boundary: boolean;
  readonly tokens: number;
  readonly toolUseIds: readonly string[];
  readonly toolResultIds: readonly string[];
}

export interface TurnRecord {
  readonly contentHash: string;
  readonly parentId: string | null;
  readonly messageIds: readonly string[];
  readonly tip: string;
  readonly revision: number;
}

export interface DraftCommitRecord {
  readonly restHash: string;
  readonly revision: number;
}

export type CheckpointStatus = 'active' | 'rewound' | 'dropped';

export interface CheckpointRecord {
  readonly label: string;
  readonly messageId: string;
  readonly status: CheckpointStatus;
  readonly reason?: string;
}

export interface FailureRecord {
  readonly failureId: string;
  readonly input: unknown;
  readonly error: unknown;
  readonly turnCountAt: number;
}

export type ResumeRecord = RunResumed['data'];

export interface CalibrationSample {
  readonly provider: string;
  readonly estimated: number;
  readonly measured: number;
}

export interface PendingContext {
  readonly provider: string;
  readonly estimatedTokens: number;
}

/** How many calibration samples the state keeps (the most recent). */
export const CALIBRATION_WINDOW = 32;

export interface ConversationState {
  /** `erased`: its last event is ConversationErased; every command is refused. */
  readonly status: 'none' | 'active' | 'erased';
  readonly conversationId: string | null;
  readonly title: string | null;
  readonly forkedFrom: ForkOrigin | null;
  /** Stream revision of the last event applied; -1 before the first. */
  readonly revision: number;
  readonly rootId: string | null;
  readonly tip: string | null;
  readonly messages: PMap<MessageNode>;
  readonly turns: PMap<TurnRecord>;
  readonly draftCommits: PMap<DraftCommitRecord>;
  readonly turnCount: number;
  readonly checkpoints: PMap<CheckpointRecord>;
  readonly forks: PMap<string>;
  readonly lastFailure: FailureRecord | null;
  readonly resume: ResumeRecord | null;
  /** Few per conversation (one per rung application), so kept whole. */
  readonly compactions: readonly CompactionDecision[];
  readonly revokedCompactions: readonly string[];
  readonly revokedSinceContext: readonly string[];
  readonly branchSummaries: readonly BranchSummary[];
  readonly calibration: readonly CalibrationSample[];
  readonly pendingContext: PendingContext | null;
  /** Forks share their lineage's prompt-cache key (a fork of a fork names the first source). */
  readonly lineage: string | null;
  readonly lastContextTip: string | null;
  /** Asked again at the same tip, a context places its cache breakpoints as the first one did. */
  readonly priorContextTip: string | null;
  /** The turn in progress (`DraftSaved`), until discarded or committed. Never history. */
  readonly draft: DraftRecord | null;
}

export interface DraftRecord {
  readonly draftId: string;
  readonly parentId: string | null;
  readonly messages: readonly MessageInput[];
  readonly revision: number;
}

const INITIAL: ConversationState = Object.freeze({
  status: 'none',
  conversationId: null,
  title: null,
  forkedFrom: null,
  revision: -1,
  rootId: null,
  tip: null,
  messages: pmapEmpty<MessageNode>(),
  turns: pmapEmpty<TurnRecord>(),
  draftCommits: pmapEmpty<DraftCommitRecord>(),
  turnCount: 0,
  checkpoints: pmapEmpty<CheckpointRecord>(),
  forks: pmapEmpty<string>(),
  lastFailure: null,
  resume: null,
  compactions: Object.freeze([]) as readonly CompactionDecision[],
  revokedCompactions: Object.freeze([]) as readonly string[],
  revokedSinceContext: Object.freeze([]) as readonly string[],
  branchSummaries: Object.freeze([]) as readonly BranchSummary[],
  calibration: Object.freeze([]) as readonly CalibrationSample[],
  pendingContext: null,
  lineage: null,
  lastContextTip: null,
  priorContextTip: null,
  draft: null,
});

export const initialState = (): ConversationState => INITIAL;

const NONE: readonly string[] = Object.freeze([]);

const idsOrNone = (ids: string[]): readonly string[] => (ids.length === 0 ? NONE : ids);

export const nodeOf = (message: Message, turnEnd = false): MessageNode => {
  const toolUseIds = idsOrNone(toolUseIdsOf(message.content));
  return {
    parentId: message.parentId,
    role: message.role,
    boundary: turnEnd || (message.role === 'assistant' && toolUseIds.length === 0),
    tokens: estimateTokens(message.content),
    toolUseIds,
    toolResultIds: idsOrNone(toolResultIdsOf(message.content)),
  };
};

export const getNode = (state: ConversationState, id: string): MessageNode | undefined =>
  pmapGet(state.messages, id);

export const hasMessage = (state: ConversationState, id: string): boolean =>
  pmapHas(state.messages, id);

export const messageCount = (state: ConversationState): number => state.messages.size;

/** The node is a turn end on tool results: the next turn opens with the assistant continuing. */
export const continuesAfter = (node: MessageNode | undefined): boolean =>
  node !== undefined && node.role === 'user';

/** A new turn may hang here: the end of a turn, or a system message at the root. */
export const isBranchable = (node: MessageNode): boolean =>
  node.boundary || (node.role === 'system' && node.parentId === null);

export const getCheckpoint = (
  state: ConversationState,
  label: string,
): CheckpointRecord | undefined => pmapGet(state.checkpoints, label);

export const isLiveCheckpoint = (c: CheckpointRecord): boolean => c.status !== 'dropped';

export const listCheckpoints = (state: ConversationState): CheckpointRecord[] =>
  pmapValues(state.checkpoints).sort((a, b) =>
    a.label < b.label ? -1 : a.label > b.label ? 1 : 0,
  );

export const getTurn = (state: ConversationState, turnId: string): TurnRecord | undefined =>
  pmapGet(state.turns, turnId);

export interface PendingRetry {
  readonly failureId: string;
  readonly input: unknown;
  readonly error: unknown;
}

/** The last failure not followed by a later committed turn, or null ("nothing to retry"). */
export const pendingRetry = (state: ConversationState): PendingRetry | null => {
  const f = state.lastFailure;
  if (f === null || f.turnCountAt !== state.turnCount) return null;
  return { failureId: f.failureId, input: f.input, error: f.error };
};

/** The recorded decisions not revoked, oldest first: what the ladder is given to apply. */
export function compactionsInForce(state: ConversationState): readonly CompactionDecision[] {
  if (state.revokedCompactions.length === 0) return state.compactions;
  const revoked = new Set(state.revokedCompactions);
  return state.compactions.filter((d) => !revoked.has(d.id));
}
