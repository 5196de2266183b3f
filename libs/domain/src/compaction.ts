// A decision says how to render some messages (sources never change). It stays in force, keeping
// the prompt cache warm, until the active branch no longer holds what it covers.
import { type Message } from './messages';

export type Rung = 'elide' | 'strip_images' | 'snapshot' | 'summary' | 'drop';

export const RUNGS: readonly Rung[] = ['elide', 'strip_images', 'snapshot', 'summary', 'drop'];

/** `image_limits`: it fits the budget but breaks the provider's per-request image limits. */
export type CompactionTrigger =
  'threshold' | 'overflow' | 'shake' | 'snapshot' | 'compact' | 'image_limits';

interface DecisionBase {
  readonly id: string;
  readonly trigger: CompactionTrigger;
  readonly provider: string;
  readonly model: string;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** True when this decision changes bytes inside the prefix the provider may have cached. */
  readonly cachedPrefixChanged: boolean;
  /** Placeholder texts' version; absent = 1 (see the README's "Older events"). */
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
  readonly sourceHash: string;
  /** How the source text was serialized; absent = the ladder's first serializer (README). */
  readonly textFormat?: string;
}

export interface SummaryDecision extends DecisionBase, CoveredRange {
  readonly rung: 'summary';
  readonly summary: string;
  readonly summarizerModel: string;
  readonly windows: number;
}

/** The last rung: the oldest part of the middle left out of the request (the log keeps it). */
export interface DropDecision extends DecisionBase, CoveredRange {
  readonly rung: 'drop';
  readonly droppedTokens: number;
}

export type RangeDecision = SnapshotDecision | SummaryDecision | DropDecision;

export type CompactionDecision =
  ElisionDecision | ImageStripDecision | SnapshotDecision | SummaryDecision | DropDecision;

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

/** Resolved: a reproduction runs with these, not with what the settings say later. */
export interface ContextCapabilitiesRecord {
  readonly vision: boolean;
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
  readonly capabilities?: ContextCapabilitiesRecord;
  readonly encoding?: number;
  readonly cache?: { readonly key: string; readonly previousTip: string | null } | null;
  readonly append?: readonly Message[];
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
