/** The commands a conversation decides on, their results, and the decision shape. */
import { type DomainError } from './errors';
import { type BranchSummary } from './branch-summary';
import { type CompactionDecision } from './compaction';
import { type ContextAssembled, type ConversationEvent, type IdMap } from './events';
import { type Message, type MessageInput } from './messages';

export interface StartCommand {
  readonly type: 'start';
  readonly conversationId?: string;
  readonly title?: string | null;
  readonly metadata?: Record<string, unknown>;
}

export interface CommitTurnCommand {
  readonly type: 'commitTurn';
  /** Makes retries idempotent; generated when absent. */
  readonly turnId?: string;
  /** The message the turn chains from; null only for the conversation's first turn. */
  readonly parentId: string | null;
  /** When given, the tip must be exactly this (null: no tip yet), else `stale_tip`. */
  readonly expectedTip?: string | null;
  /** Already parsed with `parseMessages`. */
  readonly messages: readonly MessageInput[];
}

export interface MoveTipCommand {
  readonly type: 'moveTip';
  /** null: no tip — the active branch is empty (every message stays in the tree). */
  readonly messageId: string | null;
  readonly expectedTip?: string | null;
  /**
   * The summary of the path this move leaves (made by the application from the tip it read):
   * appended as `BranchSummarized` with the `TipMoved`. Refused as `stale_tip` when the tip or
   * the target is no longer the one it was made for.
   */
  readonly branchSummary?: BranchSummary;
}

export interface ForkCommand {
  readonly type: 'fork';
  /** End of the copied path; default the tip. Must end a turn (or be the root system message). */
  readonly messageId?: string;
  /**
   * Id of the new conversation. When absent it is derived (`deps.stableId`) from the source, its
   * revision, the end message, title and metadata: a retry of the same request on the same
   * revision (e.g. after the source-side append failed) decides the same fork.
   */
  readonly forkConversationId?: string;
  readonly title?: string | null;
  readonly metadata?: Record<string, unknown>;
  /**
   * The full messages of the path root → end, as loaded by the caller (the write-side state keeps
   * no content). Use `forkPathIds(state, messageId)` to know which to load; they must match.
   */
  readonly path: readonly Message[];
}

export interface SetCheckpointCommand {
  readonly type: 'setCheckpoint';
  readonly label: string;
  /** Default the tip. Must end a committed turn. */
  readonly messageId?: string;
  /** Move a live label to a new target instead of failing with `checkpoint_exists`. */
  readonly replace?: boolean;
}

export interface RewindCommand {
  readonly type: 'rewind';
  readonly label: string;
  readonly digest?: string | null;
  readonly expectedTip?: string | null;
}

export interface ResumeCommand {
  readonly type: 'resume';
  readonly keepMessages?: number;
  readonly keepTokens?: number;
}

export interface RecordFailureCommand {
  readonly type: 'recordFailure';
  /** The turn request that failed (JSON). */
  readonly input: unknown;
  /** What went wrong (JSON). */
  readonly error: unknown;
  readonly failureId?: string;
}

/** Record a context handed out: the ladder's new decisions, then the audit receipt. */
export interface RecordContextCommand {
  readonly type: 'recordContext';
  readonly decisions: readonly CompactionDecision[];
  readonly assembled: ContextAssembled['data'];
}

/** Undo a compaction decision: later contexts no longer apply it. */
export interface RevokeCompactionCommand {
  readonly type: 'revokeCompaction';
  readonly decisionId: string;
  readonly reason?: string | null;
}

/** Save the turn in progress (replacing any draft): a partial turn, durable, never history. */
export interface SaveDraftCommand {
  readonly type: 'saveDraft';
  readonly parentId: string | null;
  /** Already parsed with `parseMessages`. */
  readonly messages: readonly MessageInput[];
  readonly draftId?: string;
}

export interface DiscardDraftCommand {
  readonly type: 'discardDraft';
}

/** Commit the draft, plus `messages` after it, as one turn; the draft goes in the same append. */
export interface CommitDraftCommand {
  readonly type: 'commitDraft';
  readonly turnId?: string;
  readonly expectedTip?: string | null;
  /** The rest of the turn after the draft's messages (may be empty). Parsed. */
  readonly messages: readonly MessageInput[];
}

/** Erase the conversation (the application destroys its data key first). */
export interface EraseCommand {
  readonly type: 'erase';
  readonly reason: string;
  /** The time of the key's tombstone, so the event and the tombstone agree; default now. */
  readonly erasedAt?: string;
}

export type Command =
  | SaveDraftCommand
  | DiscardDraftCommand
  | CommitDraftCommand
  | StartCommand
  | CommitTurnCommand
  | MoveTipCommand
  | ForkCommand
  | SetCheckpointCommand
  | RewindCommand
  | ResumeCommand
  | RecordFailureCommand
  | RecordContextCommand
  | RevokeCompactionCommand
  | EraseCommand;

export type CommandType = Command['type'];

export interface CommandResults {
  start: { conversationId: string; tip: null; revision: number };
  commitTurn: {
    turnId: string;
    messageIds: readonly string[];
    tip: string;
    revision: number;
    /** True when this turnId was already committed with the same content (no new events). */
    replayed: boolean;
  };
  moveTip: { tip: string | null; revision: number };
  fork: {
    forkConversationId: string;
    idMap: IdMap;
    /** The new stream's events, to append with expected revision `no_stream`. */
    forkEvents: readonly ConversationEvent[];
    /** The new stream's revision after `forkEvents`. */
    forkRevision: number;
    revision: number;
    /** True when the source already records this fork (same id, same end): nothing to append. */
    replayed: boolean;
  };
  setCheckpoint: { label: string; messageId: string; revision: number; replayed: boolean };
  rewind: { tip: string; revision: number };
  resume: {
    cutAt: string;
    droppedCheckpoints: readonly string[];
    keptCount: number;
    keptTokens: number;
    keptWholeLastTurn: boolean;
    revision: number;
  };
  recordFailure: { failureId: string; revision: number };
  saveDraft: { draftId: string; revision: number; replayed: boolean };
  discardDraft: { revision: number; discarded: boolean };
  commitDraft: CommandResults['commitTurn'];
  recordContext: { contextId: string; revision: number };
  /** `replayed`: it was revoked already (nothing appended). */
  revokeCompaction: { decisionId: string; revision: number; replayed: boolean };
  erase: { conversationId: string; erasedAt: string; reason: string; revision: number };
}

export type ResultOf<C extends CommandType> = CommandResults[C];

/**
 * What `decide` returns: the events to append (atomically, expecting the state's revision) and
 * the result the caller answers with; `revision` in results is the revision after the append.
 */
export type Decision<R> =
  | { readonly ok: true; readonly events: readonly ConversationEvent[]; readonly result: R }
  | { readonly ok: false; readonly error: DomainError };

export interface DecideDeps {
  /** A fresh unique id (message, turn, conversation, failure). */
  newId(): string;
  /** ISO-8601 time for `createdAt`. */
  now(): string;
  /**
   * The same id for the same name, every time (forks derive their ids with it, so a retry
   * decides the same fork). Callers scope it (e.g. by tenant); default `stableId(name)`.
   */
  stableId?(name: readonly string[]): string;
}
