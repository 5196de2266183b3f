/** Cheap to rebuild: measurements are cached per message, pages come from the page store. */
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
  readonly snapshotUnavailable: string | null;
  readonly shape: SnapshotShape | null;
  readonly render: RenderPages | null;
  readonly cache: TokenCache;
  factor: number;
  target: number;
  /** The ladder may reach the summary rung again: a provider that just failed is not re-asked. */
  summaryFailure?: string;
}

export interface LadderState {
  readonly decisions: readonly CompactionDecision[];
  readonly plan: ViewPlan;
  readonly items: readonly ViewItem[];
  readonly measure: ViewMeasure;
  readonly tokens: number;
}

export interface PageStore {
  get(decisionId: string): readonly Buffer[] | undefined;
  put(decision: Pick<SnapshotDecision, 'id' | 'sourceHash'>, pages: readonly Buffer[]): void;
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
      // From the very text the decision hashed, never from earlier images (invariant 7).
      const text = snapshotSource(ctx, decision, decisions);
      if (sha256(text) !== decision.sourceHash)
        throw new Error(`source text of snapshot ${decision.id} no longer matches its hash`);
      const pages = await ctx.render(text, decision.shape);
      put(decision, pages);
      return pages;
    },
  };
}

/** Serialized as the request showed it when decided (earlier elisions and strips included). */
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

export function firstDifference(a: readonly ViewItem[], b: readonly ViewItem[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i].key !== b[i].key) return i;
  return n;
}

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
