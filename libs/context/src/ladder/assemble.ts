// Decisions in force → view → the rungs, only as far as needed → the validated body, a receipt and
// the new decisions. Targets and modes: README.md ("The ladder and the assembler").
import type { CompactionDecision, CompactionTrigger, Rung } from '@arbor/domain/compaction';
import {
  type AnthropicBody,
  type encode,
  encodeWithRenames,
  type ProviderBody,
} from '../providers';
import { checkImageSources, cutAtProviderCompaction } from '../providers/shared';
import { applyAnthropicBreakpoints, type CacheReceipt, locateAnthropic, planCache } from './cache';
import { calibrate } from '../tokens/calibration';
import { type Violation, checkBody } from '../validity';
import { resolveLimits } from '../validity/limits';
import { resolveCapabilities } from './capabilities';
import { AssemblyInvariantError, CannotFitError, ReplayDivergenceError } from './errors';
import { fixedTokens } from './measure';
import type { RungRunner, StepOptions } from './rungs/common';
import { drop } from './rungs/drop';
import { elide } from './rungs/elide';
import { snapshot } from './rungs/snapshot';
import { imageLimitProblems, stripImages } from './rungs/strip-images';
import { summary } from './rungs/summary';
import { serializeMessages } from './serialize';
import {
  type LadderContext,
  type LadderState,
  buildState,
  changesSentPrefix,
  createPageStore,
  firstDifference,
  prefixHash,
} from './state';
import { createTokenCache } from './token-cache';
import type { AssembleInput, AssembleResult, ContextReceipt, RungReceipt } from './types';
import { indexMessages } from './view';
import { analyzeWindow } from './window';

export const DEFAULT_RESERVE_TOKENS = 4096;
export const RESERVE_SHARE = 0.05;
/** Reactive recovery aims this far under the provider's measured limit. */
export const OVERFLOW_HEADROOM = 0.05;
const OVERFLOW_FACTOR_RANGE = [0.5, 4] as const;

const RUNNERS: Record<Rung, RungRunner> = {
  elide,
  strip_images: stripImages,
  snapshot,
  summary,
  drop,
};

interface Step extends StepOptions {
  rung: Rung;
}

export function autoTarget(budgetTokens: number, maxTokens?: number): number {
  const reserve = Math.max(
    maxTokens ?? DEFAULT_RESERVE_TOKENS,
    Math.ceil(budgetTokens * RESERVE_SHARE),
  );
  return budgetTokens - reserve;
}

function checkInput(input: AssembleInput): void {
  const positive = (name: string, v: number | undefined) => {
    if (v !== undefined && !(Number.isFinite(v) && v > 0)) {
      throw new RangeError(`${name} must be a positive number, got ${v}`);
    }
  };
  positive('budgetTokens', input.budgetTokens);
  positive('maxTokens', input.maxTokens);
  positive('calibration', input.calibration);
  positive('overflow.measuredTokens', input.overflow?.measuredTokens);
  positive('overflow.limitTokens', input.overflow?.limitTokens);
}

function snapshotUnavailable(input: AssembleInput, ctxCaps: LadderContext['caps']): string | null {
  if (input.renderPages === undefined) return 'no page renderer configured';
  if (!ctxCaps.vision) return `${input.model} does not accept images`;
  if (ctxCaps.snapshotShape === null) return `no snapshot page shape for ${input.model}`;
  return null;
}

export const cacheScopeOf = (input: AssembleInput): string =>
  input.cacheScope ?? input.conversationId;

export function createContext(given: AssembleInput): LadderContext {
  // What a provider-side compaction replaces is already compacted: not sent, not counted.
  const live = cutAtProviderCompaction(given.messages, given.provider, given.model);
  checkImageSources(live, given.provider);
  const input = live === given.messages ? given : { ...given, messages: live };
  const caps = resolveCapabilities(input.provider, input.model, input.capabilities);
  const cache = input.tokenCache ?? createTokenCache();
  const scope = cacheScopeOf(input);
  const measure = {
    conversationId: scope,
    provider: input.provider,
    model: input.model,
    cache,
  };
  const unavailable = snapshotUnavailable(input, caps);
  return {
    input,
    source: {
      conversationId: input.conversationId,
      messages: input.messages,
      indexById: indexMessages(input.messages),
      shape: analyzeWindow(input.messages),
      memo: cache.renderMemo?.(scope),
    },
    caps,
    limits: resolveLimits(input.provider, caps.limits, input.model),
    measure,
    fixed: fixedTokens(measure, input.system, input.tools),
    serialize: input.serialize ?? serializeMessages,
    pages: createPageStore(scope, input.pageCache),
    snapshotUnavailable: unavailable,
    shape: unavailable === null ? caps.snapshotShape : null,
    render: unavailable === null ? (input.renderPages ?? null) : null,
    cache,
    factor: input.calibration ?? 1,
    target: autoTarget(input.budgetTokens, input.maxTokens),
  };
}

function plannedSteps(
  ctx: LadderContext,
  trigger: CompactionTrigger,
): {
  steps: Step[];
  notes: RungReceipt[];
} {
  const mode = ctx.input.mode;
  const auto = (rung: Rung): Step => ({ rung, force: false, trigger });
  const forced = (rung: Rung): Step => ({ rung, force: true, trigger: mode as CompactionTrigger });
  const ladder: Rung[] = ['elide', 'strip_images', 'snapshot', 'summary', 'drop'];
  const notes: RungReceipt[] = [];
  let first: Step[] = [];
  if (mode === 'shake') first = [forced('elide'), forced('strip_images')];
  if (mode === 'snapshot') first = [forced('elide'), forced('strip_images'), forced('snapshot')];
  if (mode === 'compact') {
    if (ctx.input.summarize !== undefined) first = [forced('summary')];
    else {
      const why =
        ctx.snapshotUnavailable === null
          ? 'no summarizer configured: compacting onto snapshot pages instead'
          : `no summarizer configured, and no snapshots (${ctx.snapshotUnavailable}): nothing can compact`;
      notes.push({
        rung: 'summary',
        applied: false,
        trigger: 'compact',
        reason: why,
        tokensBefore: 0,
        tokensAfter: 0,
        cachedPrefixChanged: false,
        decisionIds: [],
      });
      if (ctx.snapshotUnavailable === null) first = [forced('snapshot')];
    }
  }
  const done = new Set(
    first.filter((s) => s.rung === 'snapshot' || s.rung === 'summary').map((s) => s.rung),
  );
  return { steps: [...first, ...ladder.filter((r) => !done.has(r)).map(auto)], notes };
}

function needed(ctx: LadderContext, state: LadderState, step: Step): boolean {
  if (step.force || state.tokens > ctx.target) return true;
  return step.rung === 'strip_images' && imageLimitProblems(ctx, state).length > 0;
}

async function walk(
  ctx: LadderContext,
  state: LadderState,
  steps: readonly Step[],
  receipts: RungReceipt[],
  added: CompactionDecision[],
): Promise<LadderState> {
  let current = state;
  for (const step of steps) {
    if (!needed(ctx, current, step)) continue;
    const result = await RUNNERS[step.rung](ctx, current, step);
    receipts.push(result.receipt);
    added.push(...result.added);
    current = result.state;
  }
  return current;
}

/** Still over after the planned steps: every free rung in full, and the range rungs once more. */
async function climb(
  ctx: LadderContext,
  initial: LadderState,
  receipts: RungReceipt[],
  added: CompactionDecision[],
): Promise<LadderState> {
  const trigger: CompactionTrigger = ctx.input.overflow !== undefined ? 'overflow' : 'threshold';
  const { steps, notes } = plannedSteps(ctx, trigger);
  for (const n of notes) {
    receipts.push({ ...n, tokensBefore: initial.tokens, tokensAfter: initial.tokens });
  }
  let state = await walk(ctx, initial, steps, receipts, added);
  if (state.tokens > ctx.target) {
    const escalate: Step[] = [
      { rung: 'elide', force: true, trigger },
      { rung: 'strip_images', force: true, trigger },
      { rung: 'snapshot', force: false, trigger },
      { rung: 'summary', force: false, trigger },
      { rung: 'drop', force: false, trigger },
    ];
    state = await walk(ctx, state, escalate, receipts, added);
  }
  if (state.tokens > ctx.target) throw cannotFit(ctx, state, receipts);
  return state;
}

/** What no rung removes: system prompt, tools, and the turn in progress with what it must keep. */
function cannotFit(
  ctx: LadderContext,
  state: LadderState,
  receipts: readonly RungReceipt[],
): CannotFitError {
  const keep = ctx.source.shape.drop.keep;
  let current = 0;
  for (let i = keep.length - 1; i >= 0; i--) {
    if (keep[i] && ctx.source.messages[i].role !== 'system' && !ctx.source.messages[i].pinned) {
      current = i;
      break;
    }
  }
  let tail = 0;
  state.items.forEach((item, i) => {
    const kept = item.kind === 'source' && keep[item.from];
    if (item.from >= current || kept) tail += state.measure.stats[i].tokens;
  });
  const floor = {
    systemTokens: calibrate(ctx.fixed.system, ctx.factor),
    toolsTokens: calibrate(ctx.fixed.tools, ctx.factor),
    protectedTailTokens: calibrate(tail, ctx.factor),
  };
  return new CannotFitError(state.tokens, ctx.target, ctx.input.budgetTokens, receipts, floor);
}

const SIZE_CODES = new Set(['request_too_large']);

// Encoding never grows text more than 2.5× (escaped JSON at worst): the exact byte count, which
// costs more than the rest of a large assembly, is taken only when it could matter.
const TEXT_GROWTH_BOUND = 2.5;
const EXACT_SIZE_CHECK_SHARE = 0.9;

function mayBreakRequestSize(ctx: LadderContext, state: LadderState): boolean {
  const max = ctx.limits.maxRequestBytes;
  if (max === undefined) return false;
  const m = state.measure;
  const text = Math.max(0, m.jsonBytes - m.imageChars) + (ctx.input.system?.length ?? 0) + 4096;
  const tools = ctx.input.tools === undefined ? 0 : JSON.stringify(ctx.input.tools).length;
  const bound = m.imageChars + 64 * m.images + TEXT_GROWTH_BOUND * (text + tools);
  return bound >= max * EXACT_SIZE_CHECK_SHARE;
}

function checkBodyFast(
  ctx: LadderContext,
  state: LadderState,
  body: ReturnType<typeof encode>,
): Violation[] {
  const skipSize = !mayBreakRequestSize(ctx, state);
  return checkBody(ctx.input.provider, body, {
    model: ctx.input.model,
    limits: skipSize ? { ...ctx.caps.limits, maxRequestBytes: undefined } : ctx.caps.limits,
  });
}

export async function assembleContext(input: AssembleInput): Promise<AssembleResult> {
  checkInput(input);
  const ctx = createContext(input);
  let state = await buildState(ctx, input.decisions);
  const initial = state;
  let revoked: ContextReceipt['revoked'];
  let revokedAt: number | null = null;
  if (input.revoked !== undefined && input.revoked.decisionIds.length > 0) {
    const before = await buildState(ctx, input.revoked.previousDecisions);
    const at = firstDifference(before.items, initial.items);
    if (at < before.items.length || at < initial.items.length) revokedAt = at;
    revoked = {
      decisionIds: [...input.revoked.decisionIds],
      cachedPrefixChanged: changesSentPrefix(ctx, before.items, initial.items),
    };
  }
  if (input.overflow !== undefined && input.replayOnly !== true) {
    const [lo, hi] = OVERFLOW_FACTOR_RANGE;
    const ratio = input.overflow.measuredTokens / Math.max(1, state.measure.raw);
    ctx.factor = Math.min(hi, Math.max(lo, ratio));
    state = { ...state, tokens: calibrate(state.measure.raw, ctx.factor) };
  }
  if (input.overflow !== undefined) {
    ctx.target = Math.min(
      Math.floor(input.overflow.limitTokens * (1 - OVERFLOW_HEADROOM)),
      ctx.target,
    );
  }
  const receipts: RungReceipt[] = [];
  const added: CompactionDecision[] = [];
  if (input.replayOnly === true) {
    if (state.tokens > ctx.target) throw new ReplayDivergenceError(state.tokens, ctx.target);
  } else {
    state = await climb(ctx, state, receipts, added);
  }
  const encodeOptions = {
    model: input.model,
    ...(input.system !== undefined ? { system: input.system } : {}),
    ...(input.tools !== undefined ? { tools: input.tools } : {}),
    ...(input.maxTokens !== undefined ? { maxTokens: input.maxTokens } : {}),
    ...(input.encoding !== undefined ? { encoding: input.encoding } : {}),
  };
  const encoded = encodeWithRenames(
    input.provider,
    state.items.map((i) => i.message),
    encodeOptions,
  );
  const renames = encoded.renames;
  const changes = [
    ...(added.length > 0 ? [firstDifference(initial.items, state.items)] : []),
    ...(revokedAt !== null ? [revokedAt] : []),
  ];
  const { body, cache } = withCache(
    ctx,
    state,
    encoded.body,
    changes.length > 0 ? Math.min(...changes) : null,
    (n) =>
      encodeWithRenames(
        'anthropic',
        state.items.slice(0, n + 1).map((i) => i.message),
        encodeOptions,
      ).body,
  );
  // An empty conversation's body has no messages: the caller adds the first one.
  const violations = checkBodyFast(ctx, state, body).filter(
    (v) => !(input.messages.length === 0 && v.code === 'no_messages'),
  );
  if (violations.length > 0) {
    if (violations.every((v) => SIZE_CODES.has(v.code))) throw cannotFit(ctx, state, receipts);
    throw new AssemblyInvariantError(
      `assembled ${input.provider} body is invalid: ` +
        violations.map((v) => `${v.code} at ${v.path}`).join('; '),
      violations,
    );
  }

  // Every decision made is recorded, even one superseded in this call: a snapshot's source text
  // depends on the elisions and strips decided before it, applied or not.
  const newDecisions = added;
  for (const r of receipts) {
    const superseded = r.decisionIds.filter((id) => !state.plan.applied.has(id));
    if (superseded.length > 0) {
      r.reason += ` (${superseded.length} decision(s) since superseded by a later rung)`;
    }
  }
  const prefixEnd =
    newDecisions.length > 0 ? firstDifference(initial.items, state.items) : state.items.length;
  return {
    body,
    newDecisions,
    receipt: {
      rungs: receipts,
      estimatedTokens: state.tokens,
      rawTokens: state.measure.raw,
      prefixHash: prefixHash(ctx, state, prefixEnd),
      budgetTokens: input.budgetTokens,
      targetTokens: ctx.target,
      calibration: ctx.factor,
      sections: state.measure.sections,
      notApplied: state.plan.notApplied.filter((n) => !added.some((d) => d.id === n.decisionId)),
      ...(revoked !== undefined ? { revoked } : {}),
      ...(renames.length > 0 ? { toolRenames: renames } : {}),
      cache,
    },
  };
}

const NO_CACHE: CacheReceipt = {
  enabled: false,
  key: null,
  breakpoints: [],
  expectedCached: null,
  prefixChanged: false,
  changedAtItem: null,
};

/** Without `input.cache` the body is as encoded, so contexts recorded before caching reproduce. */
function withCache(
  ctx: LadderContext,
  state: LadderState,
  body: ProviderBody,
  changedAt: number | null,
  encodePrefix: (lastItem: number) => ProviderBody,
): { body: ProviderBody; cache: CacheReceipt } {
  const { input } = ctx;
  if (input.cache === undefined) return { body, cache: NO_CACHE };
  const endOf = (tip: string | undefined): number | null => {
    const tipIndex = tip === undefined ? undefined : ctx.source.indexById.get(tip);
    if (tipIndex === undefined) return null;
    const at = state.items.findIndex((i) => i.from <= tipIndex && tipIndex <= i.to);
    return at < 0 ? null : at;
  };
  const previousEnd = endOf(input.previousTipId);
  const lastEnd = endOf(input.cache.lastTipId);
  const plan = {
    provider: input.provider,
    items: state.items,
    itemTokens: state.measure.stats.map((s) => s.tokens),
    fixedTokens: ctx.fixed.system + ctx.fixed.tools,
    hasSystemOrTools: (input.system ?? '') !== '' || (input.tools ?? []).length > 0,
    previousEnd,
    ...(lastEnd !== null ? { lastEnd } : {}),
    changedAt,
    key: input.cache.key,
  };
  if (input.provider === 'anthropic') {
    const anthropic = body as AnthropicBody;
    const cache = planCache(plan, (b) =>
      locateAnthropic(anthropic, b, (n) => {
        const prefix = encodePrefix(n) as AnthropicBody;
        const last = prefix.messages[prefix.messages.length - 1];
        return { messages: prefix.messages.length, lastBlocks: last?.content.length ?? 0 };
      }),
    );
    return { body: applyAnthropicBreakpoints(anthropic, cache.breakpoints), cache };
  }
  const cache = planCache(plan);
  if (input.provider === 'gemini') return { body, cache };
  return { body: { ...body, prompt_cache_key: input.cache.key } as ProviderBody, cache };
}
