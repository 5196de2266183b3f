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
  readonly parentId: string | null;
  /** When given, the tip must be exactly this (null: no tip yet), else `stale_tip`. */
  readonly expectedTip?: string | null;
  readonly messages: readonly MessageInput[];
}

export interface MoveTipCommand {
  readonly type: 'moveTip';
  /** null: no tip — the active branch is empty (every message stays in the tree). */
  readonly messageId: string | null;
  readonly expectedTip?: string | null;
  /** Refused as `stale_tip` when the tip or the target is no longer the one it was made for. */
  readonly branchSummary?: BranchSummary;
}

export interface ForkCommand {
  readonly type: 'fork';
  readonly messageId?: string;
  /** Absent: derived from the request, so a retry on the same revision decides the same fork. */
  readonly forkConversationId?: string;
  readonly title?: string | null;
  readonly metadata?: Record<string, unknown>;
  /** Root → end, loaded by the caller (the state keeps no content; see `forkPathIds`). */
  readonly path: readonly Message[];
}

export interface SetCheckpointCommand {
  readonly type: 'setCheckpoint';
  readonly label: string;
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
  readonly input: unknown;
  readonly error: unknown;
  readonly failureId?: string;
}

export interface RecordContextCommand {
  readonly type: 'recordContext';
  readonly decisions: readonly CompactionDecision[];
  readonly assembled: ContextAssembled['data'];
}

export interface RevokeCompactionCommand {
  readonly type: 'revokeCompaction';
  readonly decisionId: string;
  readonly reason?: string | null;
}

/** Save the turn in progress (replacing any draft): a partial turn, durable, never history. */
export interface SaveDraftCommand {
  readonly type: 'saveDraft';
  readonly parentId: string | null;
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
    replayed: boolean;
  };
  moveTip: { tip: string | null; revision: number };
  fork: {
    forkConversationId: string;
    idMap: IdMap;
    forkEvents: readonly ConversationEvent[];
    forkRevision: number;
    revision: number;
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
  revokeCompaction: { decisionId: string; revision: number; replayed: boolean };
  erase: { conversationId: string; erasedAt: string; reason: string; revision: number };
}

export type ResultOf<C extends CommandType> = CommandResults[C];

/** The events to append atomically at the state's revision; `revision` in results is after it. */
export type Decision<R> =
  | { readonly ok: true; readonly events: readonly ConversationEvent[]; readonly result: R }
  | { readonly ok: false; readonly error: DomainError };

export interface DecideDeps {
  newId(): string;
  now(): string;
  /** Same name, same id: a retried fork decides the same ids. Callers scope it (e.g. by tenant). */
  stableId?(name: readonly string[]): string;
}
