import type { CacheReceipt } from './cache';
import type {
  CompactionDecision,
  CompactionTrigger,
  ContextSections,
  Rung,
} from '@arbor/domain/compaction';
import type { Message } from '@arbor/domain/messages';
import type { ToolRename } from '../providers/tool-ids';
import type { BodyEncoding, ProviderName, ToolDefinition } from '../types';
import type { ModelCapabilities } from './capabilities';
import type { TokenCache } from './token-cache';

export type AssembleMode = 'auto' | 'shake' | 'snapshot' | 'compact';

export interface SummaryRequest {
  conversationId: string;
  provider: ProviderName;
  model: string;
  messages: readonly Message[];
  targetTokens: number;
}

export interface SummaryResult {
  summary: string;
  model: string;
  windows: number;
}

export type Summarize = (request: SummaryRequest) => Promise<SummaryResult>;

/** Text → PNG pages in a named page shape (see @arbor/snapshots). Must be deterministic. */
export type RenderPages = (text: string, shape: string) => Promise<Buffer[]>;

/** Messages → the text snapshot pages are rendered from. Must be deterministic. */
export type SerializeMessages = (messages: readonly Message[]) => string;

/** Pages are a pure function of (source text, shape), so a hit equals rendering again. */
export interface PageCache {
  get(key: string): readonly Buffer[] | undefined;
  set(key: string, pages: readonly Buffer[]): void;
}

export interface OverflowReport {
  measuredTokens: number;
  limitTokens: number;
}

export interface AssembleInput {
  conversationId: string;
  provider: ProviderName;
  model: string;
  /** The live window of the active branch, root → tip (already trimmed by resume). */
  messages: readonly Message[];
  decisions: readonly CompactionDecision[];
  budgetTokens: number;
  system?: string;
  tools?: readonly ToolDefinition[];
  maxTokens?: number;
  mode: AssembleMode;
  overflow?: OverflowReport;
  calibration?: number;
  capabilities?: Partial<ModelCapabilities>;
  /** Absent → the snapshot rung is unavailable (and snapshot decisions in force are not applied). */
  renderPages?: RenderPages;
  /** Absent → the summary rung is unavailable. */
  summarize?: Summarize;
  /** False: a request nothing else fits gets `cannot_fit` instead of a drop (default true). */
  allowDrop?: boolean;
  serialize?: SerializeMessages;
  pageCache?: PageCache;
  newId: () => string;
  tokenCache?: TokenCache;
  /** Unique across everyone sharing the cache (tenant-qualified where ids are per tenant). */
  cacheScope?: string;
  /** Only changes up to it count as `cachedPrefixChanged`; unknown, every message counts. */
  previousTipId?: string;
  revoked?: { decisionIds: readonly string[]; previousDecisions: readonly CompactionDecision[] };
  /** Apply `decisions` as given, run no rung; `ReplayDivergenceError` if one is needed. */
  replayOnly?: boolean;
  /** The encoders' output version (default `BODY_ENCODING`); a reproduction passes the recorded one. */
  encoding?: BodyEncoding;
  /** Absent: a body without hints (so contexts from before caching reproduce). See `cache.ts`. */
  cache?: { key: string; lastTipId?: string };
}

export interface RungReceipt {
  rung: Rung;
  applied: boolean;
  trigger: CompactionTrigger;
  reason: string;
  tokensBefore: number;
  tokensAfter: number;
  cachedPrefixChanged: boolean;
  decisionIds: string[];
  details?: Record<string, number | string>;
}

export interface ContextReceipt {
  rungs: RungReceipt[];
  estimatedTokens: number;
  rawTokens: number;
  /** Equal hashes ⇔ equal bytes up to the first message this call's new decisions changed. */
  prefixHash: string;
  budgetTokens: number;
  targetTokens: number;
  calibration: number;
  sections: ContextSections;
  notApplied: { decisionId: string; reason: string }[];
  revoked?: { decisionIds: string[]; cachedPrefixChanged: boolean };
  toolRenames?: ToolRename[];
  cache: CacheReceipt;
}

export interface AssembleResult {
  /** The encoded body, validated for its provider. */
  body: unknown;
  receipt: ContextReceipt;
  /** To record as `CompactionApplied` events, in order. */
  newDecisions: CompactionDecision[];
}
