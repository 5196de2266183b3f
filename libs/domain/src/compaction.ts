/**
 * Compaction decisions: what a rung of the ladder decided, recorded in a `CompactionApplied`
 * event. Source messages are never changed; a decision says how to *render* some messages in the
 * next request, and it stays in force (so the next call reproduces the same prefix, keeping the
 * provider's prompt cache warm) until the active branch no longer contains what it covers.
 * Placeholder texts are derived from the decision data, so they are not stored.
 */
import { type Message } from './messages';

export type Rung = 'elide' | 'strip_images' | 'snapshot' | 'summary' | 'drop';

export const RUNGS: readonly Rung[] = ['elide', 'strip_images', 'snapshot', 'summary', 'drop'];

/**
 * Why the ladder ran: the threshold, a provider's overflow report, a mode asked for it, or the
 * request would break the provider's per-request image limits even though it fits the budget
 * (`image_limits`, added for the strip rung so the audit log says why images went).
 */
export type CompactionTrigger =
  'threshold' | 'overflow' | 'shake' | 'snapshot' | 'compact' | 'image_limits';

interface DecisionBase {
  /** Unique within the conversation. */
  readonly id: string;
  readonly trigger: CompactionTrigger;
  readonly provider: string;
  readonly model: string;
  /** Estimated tokens of the request before and after this rung. */
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** True when this decision changes bytes inside the prefix the provider may have cached. */
  readonly cachedPrefixChanged: boolean;
  /**
   * The version of the texts that stand in for what the decision took out (`PLACEHOLDERS` of
   * @arbor/context). Absent: version 1, recorded before it existed — the texts name the
   * conversation (`GET /v1/conversations/{id}/messages/…`) and message ids, and keep doing so,
   * so contexts handed out then reproduce byte for byte. 2: the texts name neither, so a fork's
   * copy of the decision renders the very same bytes as the source's.
   */
  readonly placeholders?: number;
}

export interface ElidedResult {
  readonly messageId: string;
  readonly toolUseId: string;
  readonly originalTokens: number;
}

export interface ElisionDecision extends DecisionBase {
  readonly rung: 'elide';
  readonly results: readonly ElidedResult[];
}

export interface StrippedImage {
  readonly messageId: string;
  /** Where the image was: `content[i]` or `content[i].content[j]` (inside a tool result). */
  readonly path: string;
  readonly mediaType: string;
  readonly bytes: number;
  readonly width: number | null;
  readonly height: number | null;
}

export interface ImageStripDecision extends DecisionBase {
  readonly rung: 'strip_images';
  readonly images: readonly StrippedImage[];
}

/** A contiguous run of the active branch, by ids, replaced as a unit. */
export interface CoveredRange {
  readonly fromId: string;
  readonly toId: string;
  readonly coveredIds: readonly string[];
}

export interface SnapshotDecision extends DecisionBase, CoveredRange {
  readonly rung: 'snapshot';
  /** Page shape name (see @arbor/snapshots). Pages are re-rendered from source every time. */
  readonly shape: string;
  readonly pageCount: number;
  readonly sourceChars: number;
  /** sha256 of the serialized source text the pages were rendered from. */
  readonly sourceHash: string;
  /**
   * How the source text was serialized: `snapshots/1` is `@arbor/snapshots` `serializeMessages`;
   * absent on decisions recorded before it (the ladder's first serializer, kept for them, so an
   * old decision renders the same pages it did).
   */
  readonly textFormat?: string;
}

export interface SummaryDecision extends DecisionBase, CoveredRange {
  readonly rung: 'summary';
  readonly summary: string;
  readonly summarizerModel: string;
  /** How many windows the input was folded through. */
  readonly windows: number;
}

/**
 * The last rung: the oldest part of the middle left out of the request (the log keeps every
 * message). One short marker says how many messages and tokens are missing and which ids.
 */
export interface DropDecision extends DecisionBase, CoveredRange {
  readonly rung: 'drop';
  /** Estimated tokens of what was dropped, as the request showed it then (uncalibrated). */
  readonly droppedTokens: number;
}

export type RangeDecision = SnapshotDecision | SummaryDecision | DropDecision;

export type CompactionDecision =
  ElisionDecision | ImageStripDecision | SnapshotDecision | SummaryDecision | DropDecision;

/** The source messages a decision refers to. */
export function decisionMessageIds(decision: CompactionDecision): readonly string[] {
  switch (decision.rung) {
    case 'elide':
      return decision.results.map((r) => r.messageId);
    case 'strip_images':
      return decision.images.map((i) => i.messageId);
    case 'snapshot':
    case 'summary':
    case 'drop':
      return decision.coveredIds;
  }
}

/**
 * The model capabilities the ladder ran with (default table, then the tenant's settings, then the
 * request's override), resolved: a reproduction runs with these, not with whatever the tenant's
 * settings or the default table say later.
 */
export interface ContextCapabilitiesRecord {
  readonly vision: boolean;
  /** Page shape name (see @arbor/snapshots), or null: no snapshots. */
  readonly snapshotShape: string | null;
  readonly protectTokens: number;
  readonly minElisionSavings: number;
  readonly keepImages: number;
  readonly maxSnapshotPages: number;
}

/** What a `ContextAssembled` event records: enough to reproduce the body byte for byte. */
export interface ContextRequestRecord {
  readonly provider: string;
  readonly model: string;
  readonly budgetTokens: number;
  readonly mode: 'auto' | 'shake' | 'snapshot' | 'compact';
  readonly system: string | null;
  readonly tools: readonly unknown[];
  readonly maxTokens: number | null;
  readonly overflow: { readonly measuredTokens: number; readonly limitTokens: number } | null;
  /**
   * The resolved capabilities; absent on contexts recorded before tenants could set them (those
   * ran with the default table, which a reproduction then uses).
   */
  readonly capabilities?: ContextCapabilitiesRecord;
  /**
   * The encoders' output version the body was built with (`BODY_ENCODING` of @arbor/context);
   * absent on contexts recorded before version 2 (those reproduce with version 1).
   */
  readonly encoding?: number;
  /**
   * Prompt caching as the context was built with it: the OpenAI `prompt_cache_key` and the tip
   * of the context before it (where the Anthropic `previous` breakpoint went). Absent on
   * contexts recorded before caching existed, null when the request turned it off: neither has
   * cache hints, and a reproduction adds none.
   */
  readonly cache?: { readonly key: string; readonly previousTip: string | null } | null;
  /**
   * The request's `append`: messages after the tip for that call only (not history), with the
   * ids and parents they were given, so a reproduction can put them back. Absent when none.
   */
  readonly append?: readonly Message[];
  /**
   * Branch summaries the context carried (`BranchSummarized`), each right after `afterId`: a
   * reproduction places the same ones, with their text from the log. Absent: none.
   */
  readonly branchSummaries?: readonly { readonly summaryId: string; readonly afterId: string }[];
}

export interface ContextSections {
  readonly system: number;
  readonly tools: number;
  readonly messages: number;
  readonly toolResults: number;
  readonly images: number;
  readonly snapshots: number;
  readonly summaries: number;
}
