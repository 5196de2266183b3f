/**
 * The ladder's working state: the decisions so far, the view they render to, and its measure.
 * Rebuilding a state is cheap when nothing new is measured (cached per message) and no new
 * pages are rendered (pages of snapshots in force come from the page store or the caller's
 * page cache, which hold exactly what rendering the same source text again would give).
 */
import type { CompactionDecision, SnapshotDecision } from '@arbor/domain/compaction';
import { calibrate } from '../tokens/calibration';
import type { ProviderLimits } from '../validity/limits';
import type { ModelCapabilities, SnapshotShape } from './capabilities';
import { createHash } from 'node:crypto';
import { type MeasureContext, type ViewMeasure, measureView, sha256 } from './measure';
import type { TokenCache } from './token-cache';
import type { AssembleInput, PageCache, RenderPages, SerializeMessages } from './types';
import { serializerFor } from './serialize';
import {
  type ViewItem,
  type ViewPlan,
  type ViewSource,
  planView,
  renderSourceMessage,
  renderView,
} from './view';

export interface LadderContext {
  readonly input: AssembleInput;
  readonly source: ViewSource;
  readonly caps: ModelCapabilities;
  readonly limits: ProviderLimits;
  readonly measure: MeasureContext;
  readonly fixed: { system: number; tools: number };
  readonly serialize: SerializeMessages;
  readonly pages: PageStore;
  /** Why snapshots cannot be rendered for this request, or null when they can. */
  readonly snapshotUnavailable: string | null;
  readonly shape: SnapshotShape | null;
  readonly render: RenderPages | null;
  readonly cache: TokenCache;
  factor: number;
  target: number;
  /**
   * Why the summarizer failed earlier in this call, if it did: the ladder may reach the summary
   * rung again (escalation), and a provider that just failed is not asked again.
   */
  summaryFailure?: string;
}

export interface LadderState {
  readonly decisions: readonly CompactionDecision[];
  readonly plan: ViewPlan;
  readonly items: readonly ViewItem[];
  readonly measure: ViewMeasure;
  /** Calibrated estimate. */
  readonly tokens: number;
}

/** Page images of snapshot decisions, for this call (and across calls with a `PageCache`). */
export interface PageStore {
  get(decisionId: string): readonly Buffer[] | undefined;
  put(decision: Pick<SnapshotDecision, 'id' | 'sourceHash'>, pages: readonly Buffer[]): void;
  /**
   * Renders (or finds) the pages of a snapshot in force, from its source text (see
   * `snapshotSource`); throws what the renderer throws.
   */
  load(
    ctx: LadderContext,
    decision: SnapshotDecision,
    decisions: readonly CompactionDecision[],
  ): Promise<readonly Buffer[]>;
}

export function createPageStore(conversationId: string, cache: PageCache | undefined): PageStore {
  const local = new Map<string, readonly Buffer[]>();
  const cacheKey = (d: Pick<SnapshotDecision, 'id' | 'sourceHash'>) =>
    `${conversationId}:${d.id}:${d.sourceHash}`;
  const put = (decision: Pick<SnapshotDecision, 'id' | 'sourceHash'>, pages: readonly Buffer[]) => {
    local.set(decision.id, pages);
    cache?.set(cacheKey(decision), pages);
  };
  return {
    get: (id) => local.get(id),
    put,
    async load(ctx, decision, decisions) {
      const hit = local.get(decision.id) ?? cache?.get(cacheKey(decision));
      if (hit !== undefined) {
        local.set(decision.id, hit);
        return hit;
      }
      if (ctx.render === null) throw new Error('no page renderer');
      // Always from the source text: never from earlier images; and from the very text the
      // decision hashed — anything else would show the model different pages than it was given.
      const text = snapshotSource(ctx, decision, decisions);
      if (sha256(text) !== decision.sourceHash)
        throw new Error(`source text of snapshot ${decision.id} no longer matches its hash`);
      const pages = await ctx.render(text, decision.shape);
      put(decision, pages);
      return pages;
    },
  };
}

/**
 * The text a snapshot's pages are rendered from: its covered source messages, serialized as the
 * request showed them when the snapshot was decided — tool results elided and images stripped
 * by the decisions before it stay placeholders (imaging them in full would cost pages for what
 * was already judged not worth its tokens). A pure function of the messages and the decisions
 * before it, so every later call renders the same text, hence the same pages.
 */
export function snapshotSource(
  ctx: LadderContext,
  decision: SnapshotDecision,
  decisions: readonly CompactionDecision[],
): string {
  const at = decisions.findIndex((d) => d.id === decision.id);
  const earlier = (at < 0 ? decisions : decisions.slice(0, at)).filter(
    (d) => d.rung === 'elide' || d.rung === 'strip_images',
  );
  const plan = planView(ctx.source, earlier);
  const covered = decision.coveredIds.map((id) =>
    renderSourceMessage(ctx.source, plan, ctx.source.indexById.get(id) as number),
  );
  const serialize =
    ctx.input.serialize === undefined ? serializerFor(decision) : ctx.input.serialize;
  return serialize(covered);
}

/** Snapshot decisions in force that cannot be rendered this time, with why. */
function unrenderable(ctx: LadderContext, decisions: readonly CompactionDecision[]) {
  const out = new Map<string, string>();
  if (ctx.snapshotUnavailable === null) return out;
  for (const d of decisions) if (d.rung === 'snapshot') out.set(d.id, ctx.snapshotUnavailable);
  return out;
}

export async function buildState(
  ctx: LadderContext,
  decisions: readonly CompactionDecision[],
): Promise<LadderState> {
  const exclude = unrenderable(ctx, decisions);
  for (;;) {
    const plan = planView(ctx.source, decisions, exclude);
    const pages = new Map<string, readonly Buffer[]>();
    let failed = false;
    for (const range of plan.ranges) {
      if (range.decision.rung !== 'snapshot') continue;
      try {
        pages.set(range.decision.id, await ctx.pages.load(ctx, range.decision, decisions));
      } catch (error) {
        exclude.set(range.decision.id, `rendering failed: ${(error as Error).message}`);
        failed = true;
      }
    }
    if (failed) continue;
    const items = renderView(ctx.source, plan, pages);
    const measure = measureView(items, ctx.fixed, ctx.measure);
    return { decisions, plan, items, measure, tokens: calibrate(measure.raw, ctx.factor) };
  }
}

export const fitsTarget = (ctx: LadderContext, raw: number): boolean =>
  calibrate(raw, ctx.factor) <= ctx.target;

/** Index of the first item whose rendering differs between two views (length if none). */
export function firstDifference(a: readonly ViewItem[], b: readonly ViewItem[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i].key !== b[i].key) return i;
  return n;
}

/**
 * Whether going from `before` to `after` changes bytes the provider saw in the previous request:
 * the first changed item lies at or before the previous call's tip.
 */
export function changesSentPrefix(
  ctx: LadderContext,
  before: readonly ViewItem[],
  after: readonly ViewItem[],
): boolean {
  const p = firstDifference(before, after);
  if (p >= before.length) return false;
  const tip = ctx.input.previousTipId;
  const tipIndex =
    tip === undefined ? ctx.source.messages.length - 1 : (ctx.source.indexById.get(tip) ?? -1);
  return before[p].from <= tipIndex;
}

/** sha256 over what determines the encoded body's first `count` messages. */
export function prefixHash(ctx: LadderContext, state: LadderState, count: number): string {
  const { input } = ctx;
  const head = JSON.stringify([
    input.provider,
    input.model,
    input.maxTokens ?? null,
    input.system ?? null,
    input.tools === undefined ? null : sha256(JSON.stringify(input.tools)),
  ]);
  // Hashing the digests one by one hashes the same bytes as hashing them concatenated, without
  // building the concatenation.
  const hash = createHash('sha256').update(head);
  const stats = state.measure.stats;
  for (let i = 0; i < count; i++) hash.update(stats[i].digest);
  return hash.digest('hex');
}
