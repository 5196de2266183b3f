import type { CacheReceipt } from './cache';
/**
 * The ladder's public types: what the assembler takes, what it returns, and the injected
 * functions (page renderer, summarizer) it reaches the outside world through.
 */
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

/** What a summarizer is asked: the source messages of the middle, and how long to be. */
export interface SummaryRequest {
  conversationId: string;
  /** The provider and model the assembled context is for (not the summarizer's). */
  provider: ProviderName;
  model: string;
  /** Source messages (never rendered placeholders or pages), root → tip order. */
  messages: readonly Message[];
  /** Aim for a summary of about this many tokens. */
  targetTokens: number;
}

export interface SummaryResult {
  summary: string;
  /** The model that wrote it. */
  model: string;
  /** How many windows the input was folded through. */
  windows: number;
}

export type Summarize = (request: SummaryRequest) => Promise<SummaryResult>;

/** Text → PNG pages in a named page shape (see @arbor/snapshots). Must be deterministic. */
export type RenderPages = (text: string, shape: string) => Promise<Buffer[]>;

/** Messages → the text snapshot pages are rendered from. Must be deterministic. */
export type SerializeMessages = (messages: readonly Message[]) => string;

/**
 * Rendered pages keyed by `${conversationId}:${decisionId}:${sourceHash}`. Pages are a pure
 * function of (source text, shape), so a hit is byte-identical to rendering again.
 */
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
  /** Decisions in force, oldest first (recorded by earlier calls). */
  decisions: readonly CompactionDecision[];
  budgetTokens: number;
  system?: string;
  tools?: readonly ToolDefinition[];
  maxTokens?: number;
  mode: AssembleMode;
  /** Reactive recovery: the provider rejected the last request as too long. */
  overflow?: OverflowReport;
  /** From `calibrationFactor()`; default 1. */
  calibration?: number;
  capabilities?: Partial<ModelCapabilities>;
  /** Absent → the snapshot rung is unavailable (and snapshot decisions in force are not applied). */
  renderPages?: RenderPages;
  /** Absent → the summary rung is unavailable. */
  summarize?: Summarize;
  /**
   * The last rung may leave the oldest part of the middle out (default true). False: a request
   * that nothing else fits gets `cannot_fit` instead.
   */
  allowDrop?: boolean;
  /** Overrides the built-in serializer of snapshot source text. */
  serialize?: SerializeMessages;
  pageCache?: PageCache;
  newId: () => string;
  tokenCache?: TokenCache;
  /**
   * Names the conversation in the shared caches (`tokenCache`: counts, digests, renderings).
   * Must be unique across everyone sharing the cache: a service whose conversation ids are
   * unique only per tenant passes the tenant-qualified id. Default: `conversationId`.
   */
  cacheScope?: string;
  /**
   * The tip of the previous assembly, if known: messages up to it were in the previously sent
   * request, so only changes to them count as `cachedPrefixChanged`. Unknown → every message
   * counts (a conservative answer).
   */
  previousTipId?: string;
  /**
   * Revocations since the previous context: the ids revoked, and the decisions that were in
   * force then (oldest first, the revoked ones included). The receipt says whether leaving them
   * out changed the prefix the provider may have cached.
   */
  revoked?: { decisionIds: readonly string[]; previousDecisions: readonly CompactionDecision[] };
  /**
   * Reproduce a recorded assembly: apply `decisions` as given and run no rung, so nothing new is
   * decided (`newId` is never called). `calibration` is the factor that was used (an overflow
   * report then only sets the target, it does not recompute the factor). Throws
   * `ReplayDivergenceError` when the request is over its target, i.e. a rung would be needed.
   */
  replayOnly?: boolean;
  /** The encoders' output version (default `BODY_ENCODING`); a reproduction passes the recorded one. */
  encoding?: BodyEncoding;
  /**
   * Prompt caching (`cache.ts`): Anthropic `cache_control` breakpoints, OpenAI `prompt_cache_key`
   * = `key`. Absent: a body without hints (as every context was before caching; a reproduction
   * of such a context passes none). `previousTipId` says where the previous context ended.
   * `lastTipId`: where the last context handed out ended, when that is not `previousTipId` (the
   * same request asked again at the same tip builds on the context before the last, so it gets
   * the same body, but the provider has just read the last one): only the receipt's
   * `expectedCached` uses it, never the body.
   */
  cache?: { key: string; lastTipId?: string };
}

export interface RungReceipt {
  rung: Rung;
  applied: boolean;
  trigger: CompactionTrigger;
  /** Why it ran, did nothing, or was skipped, in words. */
  reason: string;
  tokensBefore: number;
  tokensAfter: number;
  cachedPrefixChanged: boolean;
  decisionIds: string[];
  /** Rung-specific counts: results elided, images stripped, messages covered, pages. */
  details?: Record<string, number | string>;
}

export interface ContextReceipt {
  rungs: RungReceipt[];
  /** Calibrated estimate of the body's input tokens. */
  estimatedTokens: number;
  /** Uncalibrated estimate (the sum of `sections`). */
  rawTokens: number;
  /**
   * sha256 over what determines the encoded body up to the first message this call's new
   * decisions changed (the whole body when none): equal hashes ⇔ equal bytes there.
   */
  prefixHash: string;
  budgetTokens: number;
  targetTokens: number;
  calibration: number;
  /** Uncalibrated estimate by kind. */
  sections: ContextSections;
  /** Decisions in force that were not applied, with why. */
  notApplied: { decisionId: string; reason: string }[];
  /** Decisions revoked since the previous context (no longer applied), when there are any. */
  revoked?: { decisionIds: string[]; cachedPrefixChanged: boolean };
  /**
   * Tool-call ids and names the body carries in place of the recorded ones (repeated ids made
   * unique, characters the provider refuses replaced); absent when there are none.
   */
  toolRenames?: ToolRename[];
  /** Prompt caching: the breakpoints placed, the key sent, the prefix expected to be cached. */
  cache: CacheReceipt;
}

export interface AssembleResult {
  /** The encoded body, validated for its provider. */
  body: unknown;
  receipt: ContextReceipt;
  /** To record as `CompactionApplied` events, in order. */
  newDecisions: CompactionDecision[];
}
