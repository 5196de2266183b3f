/** Every event is self-contained (a MessageAppended holds the whole message). */
import {
  type CompactionDecision,
  type ContextRequestRecord,
  type ContextSections,
  type Rung,
} from './compaction';
import { type BranchSummary } from './branch-summary';
import { type Message, type MessageInput } from './messages';

export interface DomainEvent<TType extends string, TData> {
  readonly type: TType;
  readonly data: TData;
}

export type IdMap = Readonly<Record<string, string>>;

export interface ForkOrigin {
  readonly conversationId: string;
  readonly messageId: string;
}

export type ConversationStarted = DomainEvent<
  'ConversationStarted',
  {
    readonly conversationId: string;
    readonly title: string | null;
    readonly metadata: Readonly<Record<string, unknown>>;
    readonly forkedFrom: ForkOrigin | null;
  }
>;

/** Followed in the same append by its TurnCommitted, except in a fork's opening batch. */
export type MessageAppended = DomainEvent<
  'MessageAppended',
  {
    readonly message: Message;
    /** Only on a user message whose tool results close a turn (an answer ends its own turn). */
    readonly turnEnd?: true;
  }
>;

export type TurnCommitted = DomainEvent<
  'TurnCommitted',
  {
    readonly turnId: string;
    readonly parentId: string | null;
    readonly messageIds: readonly string[];
    readonly tipBefore: string | null;
    readonly tip: string;
    /** Lets a retried turnId be recognised after a restart; other content is a conflict. */
    readonly contentHash: string;
  }
>;

export type TipMoveReason = 'branch' | 'rewind' | 'fork';

export type TipMoved = DomainEvent<
  'TipMoved',
  {
    readonly from: string | null;
    readonly to: string | null;
    readonly reason: TipMoveReason;
  }
>;

export type ConversationForked = DomainEvent<
  'ConversationForked',
  { readonly forkConversationId: string; readonly fromMessageId: string; readonly idMap: IdMap }
>;

export type ForkedFrom = DomainEvent<
  'ForkedFrom',
  {
    readonly sourceConversationId: string;
    readonly sourceMessageId: string;
    readonly idMap: IdMap;
    /** Not carried over (invariant 4: dropped explicitly, never left pointing into the source). */
    readonly droppedCompactions?: readonly { readonly id: string; readonly rung: Rung }[];
    /** Forks of one lineage share a prompt-cache key. */
    readonly lineage?: string;
    readonly carriedCompactions?: readonly {
      readonly sourceId: string;
      readonly id: string;
      readonly rung: Rung;
    }[];
  }
>;

export type CheckpointSet = DomainEvent<
  'CheckpointSet',
  { readonly label: string; readonly messageId: string }
>;

export type CheckpointRewound = DomainEvent<
  'CheckpointRewound',
  {
    readonly label: string;
    readonly messageId: string;
    readonly from: string | null;
    readonly digest: string | null;
  }
>;

export type CheckpointDropReason = 'trimmed_by_resume';

export type CheckpointDropped = DomainEvent<
  'CheckpointDropped',
  { readonly label: string; readonly messageId: string; readonly reason: CheckpointDropReason }
>;

export type RunResumed = DomainEvent<
  'RunResumed',
  {
    readonly cutAt: string;
    readonly tip: string;
    readonly keepMessages: number | null;
    readonly keepTokens: number | null;
    readonly keptCount: number;
    readonly keptTokens: number;
    readonly keptWholeLastTurn: boolean;
    /** Labels dropped by this cut; their CheckpointDropped events precede this one. */
    readonly droppedCheckpoints: readonly string[];
  }
>;

export type TurnFailed = DomainEvent<
  'TurnFailed',
  { readonly failureId: string; readonly input: unknown; readonly error: unknown }
>;

export type CompactionApplied = DomainEvent<
  'CompactionApplied',
  { readonly decision: CompactionDecision }
>;

/** Contexts handed out before it still reproduce with it, from their recorded decision ids. */
export type CompactionRevoked = DomainEvent<
  'CompactionRevoked',
  { readonly decisionId: string; readonly reason: string | null }
>;

export type BranchSummarized = DomainEvent<'BranchSummarized', BranchSummary>;

export interface RecordedRung {
  readonly rung: string;
  readonly applied: boolean;
  readonly trigger: string;
  readonly reason: string;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly decisionIds: readonly string[];
}

/** Enough to reproduce the body byte for byte; `receiptVersion` absent = 1 (no `rungs`). */
export type ContextAssembled = DomainEvent<
  'ContextAssembled',
  {
    readonly contextId: string;
    readonly request: ContextRequestRecord;
    readonly tip: string | null;
    readonly cutAt: string | null;
    readonly decisionIds: readonly string[];
    readonly newDecisionIds: readonly string[];
    readonly bodyHash: string;
    readonly prefixHash: string;
    readonly estimatedTokens: number;
    readonly rawTokens: number;
    readonly calibration: number;
    readonly sections: ContextSections;
    readonly overflowSample: { readonly estimated: number; readonly measured: number } | null;
    readonly receiptVersion?: 2;
    readonly rungs?: readonly RecordedRung[];
  }
>;

/** Never history, never in a context, a resume or the tree until committed. */
export type DraftSaved = DomainEvent<
  'DraftSaved',
  {
    readonly draftId: string;
    readonly parentId: string | null;
    readonly messages: readonly MessageInput[];
  }
>;

export type DraftDiscarded = DomainEvent<
  'DraftDiscarded',
  {
    readonly draftId: string;
    readonly reason: 'discarded' | 'committed';
    /** Tells a retried commit from another commit under the same turnId once the draft is gone. */
    readonly turnId?: string;
    readonly restHash?: string;
  }
>;

/** The data key was destroyed just before this append; the stream's last event. */
export type ConversationErased = DomainEvent<
  'ConversationErased',
  {
    readonly conversationId: string;
    readonly reason: string;
    readonly erasedAt: string;
  }
>;

export type ConversationEvent =
  | DraftSaved
  | DraftDiscarded
  | ConversationStarted
  | MessageAppended
  | TurnCommitted
  | TipMoved
  | ConversationForked
  | ForkedFrom
  | CheckpointSet
  | CheckpointRewound
  | CheckpointDropped
  | RunResumed
  | TurnFailed
  | CompactionApplied
  | CompactionRevoked
  | BranchSummarized
  | ContextAssembled
  | ConversationErased;

export type ConversationEventType = ConversationEvent['type'];

export type EventOf<T extends ConversationEventType> = Extract<ConversationEvent, { type: T }>;

export type EventDataOf<T extends ConversationEventType> = EventOf<T>['data'];

export const event = <T extends ConversationEventType>(type: T, data: EventDataOf<T>): EventOf<T> =>
  ({ type, data }) as EventOf<T>;

/** Every event type this version writes; `evolve` skips unknown types, counting the revision. */
export const CONVERSATION_EVENT_TYPES: readonly ConversationEventType[] = [
  'ConversationStarted',
  'MessageAppended',
  'TurnCommitted',
  'TipMoved',
  'ConversationForked',
  'ForkedFrom',
  'CheckpointSet',
  'CheckpointRewound',
  'CheckpointDropped',
  'RunResumed',
  'TurnFailed',
  'CompactionApplied',
  'CompactionRevoked',
  'BranchSummarized',
  'ContextAssembled',
  'DraftSaved',
  'DraftDiscarded',
  'ConversationErased',
];

const TYPES: ReadonlySet<string> = new Set(CONVERSATION_EVENT_TYPES);

export const isConversationEvent = (e: { type: string }): e is ConversationEvent =>
  TYPES.has(e.type);

export const isEvent = <T extends ConversationEventType>(
  e: { type: string },
  type: T,
): e is EventOf<T> => e.type === type;
