/** Rung 4: the only rung that spends a model call; without a summarizer it is unavailable. */
import type { SummaryDecision } from '@arbor/domain/compaction';
import { SummaryProviderError } from '../../summary/errors';
import { type MiddleCandidate, middleSegments, planMiddle } from '../middle';
import type { LadderContext } from '../state';
import { type Provisional, type RungRunner, commit, noop } from './common';
import { chooseMiddle, middleStart } from './range-common';
import { REPLACEMENT_OVERHEAD_TOKENS } from './snapshot';

/** The summary length asked for: a tenth of the target, within [256, 4000] tokens. */
export function summaryTargetTokens(ctx: LadderContext): number {
  return Math.min(4000, Math.max(256, Math.floor(ctx.target * 0.1)));
}

/** Status and error type, so "HTTP 500 api_error" and "network_error" are told apart. */
export function failureText(error: unknown): string {
  if (error instanceof SummaryProviderError) {
    const status = error.status > 0 ? `HTTP ${error.status} ` : '';
    return `${status}${error.type}: ${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Summaries overshoot; plan for this much more than asked. */
const SUMMARY_OVERSHOOT = 1.25;

export const summary: RungRunner = async (ctx, state, options) => {
  const summarize = ctx.input.summarize;
  if (summarize === undefined) {
    return noop('summary', state, options, 'no summarizer configured');
  }
  if (ctx.summaryFailure !== undefined) {
    return noop('summary', state, options, `${ctx.summaryFailure} (not asked again in this call)`);
  }
  const targetTokens = summaryTargetTokens(ctx);
  const added = REPLACEMENT_OVERHEAD_TOKENS + Math.ceil(targetTokens * SUMMARY_OVERSHOOT);
  const start = middleStart(ctx, state, ['summary', 'drop']);
  const candidates = planMiddle(ctx, state, { start, cost: () => ({ added, pages: 0 }) });
  const feasible = (c: MiddleCandidate) => c.segments > 0 && c.added < c.removed;
  const choice = chooseMiddle(ctx, state, candidates, feasible, options.force === true);
  if (choice === null) {
    return noop(
      'summary',
      state,
      options,
      candidates.length === 0
        ? 'no history between the head and the tail to summarize'
        : 'no middle whose summary would make it fit',
    );
  }
  if (choice.segments === 0) {
    return noop('summary', state, options, 'nothing but kept messages before the tail');
  }
  const decisions: Provisional<SummaryDecision>[] = [];
  for (const [a, b] of middleSegments(ctx, start, choice.t)) {
    const covered = ctx.source.messages.slice(a, b);
    let result;
    try {
      result = await summarize({
        conversationId: ctx.input.conversationId,
        provider: ctx.input.provider,
        model: ctx.input.model,
        messages: covered,
        targetTokens,
      });
    } catch (error) {
      ctx.summaryFailure = `summarizer failed: ${failureText(error)}`;
      return noop('summary', state, options, ctx.summaryFailure);
    }
    if (result.summary.trim() === '') {
      return noop('summary', state, options, 'summarizer returned an empty summary');
    }
    decisions.push({
      id: ctx.input.newId(),
      rung: 'summary',
      trigger: options.trigger,
      provider: ctx.input.provider,
      model: ctx.input.model,
      fromId: covered[0].id,
      toId: covered[covered.length - 1].id,
      coveredIds: covered.map((m) => m.id),
      summary: result.summary,
      summarizerModel: result.model,
      windows: result.windows,
    });
  }
  const covered = decisions.reduce((n, d) => n + d.coveredIds.length, 0);
  const result = await commit(
    ctx,
    state,
    options,
    decisions,
    `summarized ${covered} message(s) in ${decisions.length} segment(s)`,
    { messages: covered, segments: decisions.length, targetTokens },
  );
  if (result.state.measure.raw >= state.measure.raw) {
    return noop('summary', state, options, 'the summary is longer than what it replaces');
  }
  return result;
};
