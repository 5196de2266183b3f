/**
 * The events of one conversation stream. Each is `{type, data}`; tenant, actor, time and
 * causation/correlation ids travel in the event store's metadata, not here. Every event is
 * self-contained (a MessageAppended carries the whole message), so read models can be folded
 * from the log alone.
 */
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

/** Old message id → new message id, for forks. A plain JSON object. */
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

/** One committed message, whole. Always followed (same append) by the TurnCommitted of its turn,
 * except in a fork's opening batch, where copied messages are closed by a TipMoved `fork`. */
export type MessageAppended = DomainEvent<
  'MessageAppended',
  {
    readonly message: Message;
    /**
     * The message ends its turn although it is not an assistant answer: a user message whose
     * tool results close a turn (an open turn paused on answered tool calls). Set only then —
     * an assistant message without tool_use ends its turn by itself — so the tree's turn ends
     * fold from MessageAppended alone (a fork's copies carry it too). Absent before open turns.
     */
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
    /** sha256 of the canonical turn request (parentId + messages): retries with the same turnId
     * and the same content are recognised after a restart; different content is a conflict. */
    readonly contentHash: string;
  }
>;

export type TipMoveReason = 'branch' | 'rewind' | 'fork';

export type TipMoved = DomainEvent<
  'TipMoved',
  {
    readonly from: string | null;
    /** null: the tip moved to none (an empty active branch; `reason` is `branch`). */
    readonly to: string | null;
    readonly reason: TipMoveReason;
  }
>;

/** On the source stream: a fork was made of the path ending at `fromMessageId`. */
export type ConversationForked = DomainEvent<
  'ConversationForked',
  { readonly forkConversationId: string; readonly fromMessageId: string; readonly idMap: IdMap }
>;

/** On the new stream, right after its ConversationStarted. */
export type ForkedFrom = DomainEvent<
  'ForkedFrom',
  {
    readonly sourceConversationId: string;
    readonly sourceMessageId: string;
    readonly idMap: IdMap;
    /**
     * The source's compaction decisions on the copied path that are not carried over (invariant
     * 4: dropped explicitly, never left pointing into the source): revoked ones, and ranges that
     * reach beyond the fork point. Absent on forks recorded before this field.
     */
    readonly droppedCompactions?: readonly { readonly id: string; readonly rung: Rung }[];
    /**
     * The source's decisions in force on the copied path, carried over: each is recorded again on
     * the fork (a `CompactionApplied` of the opening, after the copied messages) under its new
     * `id`, naming the fork's message ids. Absent on forks recorded before decisions were carried
     * (those dropped every decision on the path).
     */
    /**
     * The conversation the lineage started from (the source's own lineage, else the source):
     * forks of one lineage share a prompt-cache key. Absent on forks recorded before it.
     */
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
    /** The tip before the rewind. */
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
    /** The first message of the kept window (on the active branch). */
    readonly cutAt: string;
    /** The tip the window ends at. */
    readonly tip: string;
    readonly keepMessages: number | null;
    readonly keepTokens: number | null;
    readonly keptCount: number;
    readonly keptTokens: number;
    /** True when no clean window fit the limits, so the whole last turn was kept. */
    readonly keptWholeLastTurn: boolean;
    /** Labels dropped by this cut; their CheckpointDropped events precede this one. */
    readonly droppedCheckpoints: readonly string[];
  }
>;

export type TurnFailed = DomainEvent<
  'TurnFailed',
  { readonly failureId: string; readonly input: unknown; readonly error: unknown }
>;

/** A rung of the ladder decided how to render some messages from now on (sources unchanged). */
export type CompactionApplied = DomainEvent<
  'CompactionApplied',
  { readonly decision: CompactionDecision }
>;

/**
 * A compaction decision undone: later contexts no longer apply it (contexts handed out before
 * still reproduce with it, from their recorded decision ids).
 */
export type CompactionRevoked = DomainEvent<
  'CompactionRevoked',
  { readonly decisionId: string; readonly reason: string | null }
>;

/**
 * The path a tip move left, summarized (`PUT …/tip` with `summarize`): appended with its
 * `TipMoved`. Versioned by `version`. `summary` and `instruction` are sealed content.
 */
export type BranchSummarized = DomainEvent<'BranchSummarized', BranchSummary>;

/** One rung the ladder tried for a context, as recorded in its receipt (receipt version 2 on). */
export interface RecordedRung {
  readonly rung: string;
  readonly applied: boolean;
  readonly trigger: string;
  /** Why it ran, did nothing, or was skipped, in words. */
  readonly reason: string;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly decisionIds: readonly string[];
}

/**
 * The audit receipt of a context handed out: enough to reproduce its body byte for byte.
 * Versioned by `receiptVersion`: absent on receipts written before the rungs were recorded (read
 * as version 1, `rungs` unknown); 2 carries `rungs`.
 */
export type ContextAssembled = DomainEvent<
  'ContextAssembled',
  {
    readonly contextId: string;
    readonly request: ContextRequestRecord;
    /** The tip and resume cut the context was built from. */
    readonly tip: string | null;
    readonly cutAt: string | null;
    /** Decisions applied to build it (earlier ones in force, then the new ones), by id. */
    readonly decisionIds: readonly string[];
    /** Ids of the decisions this call added (their CompactionApplied events precede this one). */
    readonly newDecisionIds: readonly string[];
    readonly bodyHash: string;
    readonly prefixHash: string;
    /** Calibrated estimate handed out, and the raw (uncalibrated) one calibration pairs with. */
    readonly estimatedTokens: number;
    readonly rawTokens: number;
    readonly calibration: number;
    readonly sections: ContextSections;
    /** From a reactive call: what the provider measured for our raw estimate of that request. */
    readonly overflowSample: { readonly estimated: number; readonly measured: number } | null;
    readonly receiptVersion?: 2;
    /** The ladder's rungs with their reasons, in the order tried (version 2 on). */
    readonly rungs?: readonly RecordedRung[];
  }
>;

/**
 * The turn in progress, saved so it survives a restart (a run paused for approval holds
 * `user + assistant(tool_use)`): never history, never in a context, a resume or the tree until
 * committed. A later DraftSaved replaces it.
 */
export type DraftSaved = DomainEvent<
  'DraftSaved',
  {
    readonly draftId: string;
    readonly parentId: string | null;
    readonly messages: readonly MessageInput[];
  }
>;

/** The draft is gone: discarded, or committed as a turn (in the same append as the turn). */
export type DraftDiscarded = DomainEvent<
  'DraftDiscarded',
  {
    readonly draftId: string;
    readonly reason: 'discarded' | 'committed';
    /**
     * Committed: the turn it became, and the fingerprint of the messages the commit added after
     * the draft's, so a retry of the commit once the draft is gone is told from another commit
     * under the same turnId. Absent on drafts committed before it was recorded.
     */
    readonly turnId?: string;
    readonly restHash?: string;
  }
>;

/**
 * The conversation was erased: its data key was destroyed just before this was appended, so every
 * sealed field of the stream reads as its stand-in. The last event of a stream; no content.
 */
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

/** Build a typed event: `event('TipMoved', {from, to, reason})`. */
export const event = <T extends ConversationEventType>(type: T, data: EventDataOf<T>): EventOf<T> =>
  ({ type, data }) as EventOf<T>;

/** Every event type this version writes. Later ones (CompactionApplied, ContextAssembled) are
 * added here; `evolve` passes over types it does not know, counting the revision. */
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

/** Narrow an event to one type. */
export const isEvent = <T extends ConversationEventType>(
  e: { type: string },
  type: T,
): e is EventOf<T> => e.type === type;
