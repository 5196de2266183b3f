import { calibrate } from '../../tokens/calibration';
import { type MiddleCandidate, chooseCandidate } from '../middle';
import type { LadderContext, LadderState } from '../state';
import { protectedTokens } from './common';

/** After the last range in force: the earlier request bytes, and the provider's cache, stay. */
export function middleStart(
  ctx: LadderContext,
  state: LadderState,
  after: readonly ('snapshot' | 'summary' | 'drop')[],
): number {
  let start = ctx.source.shape.headEnd;
  for (const r of state.plan.ranges) {
    if (after.includes(r.decision.rung)) start = Math.max(start, r.to + 1);
  }
  return start;
}

/** Non-forced range rungs first aim a little lower, so the next turn needs no new range at once. */
export function fitsGoal(ctx: LadderContext, state: LadderState, goal: number) {
  return (c: MiddleCandidate) =>
    calibrate(state.measure.raw - c.removed + c.added, ctx.factor) <= goal;
}

export function lowWater(ctx: LadderContext): number {
  return ctx.target - Math.min(ctx.caps.minElisionSavings, Math.floor(ctx.target * 0.1));
}

export function chooseMiddle(
  ctx: LadderContext,
  state: LadderState,
  candidates: readonly MiddleCandidate[],
  feasible: (c: MiddleCandidate) => boolean,
  force: boolean,
): MiddleCandidate | null {
  if (force)
    return chooseCandidate(candidates, { force: true, protect: protectedTokens(ctx) }, feasible);
  return (
    chooseCandidate(
      candidates,
      { force: false, fits: fitsGoal(ctx, state, lowWater(ctx)) },
      feasible,
    ) ??
    chooseCandidate(candidates, { force: false, fits: fitsGoal(ctx, state, ctx.target) }, feasible)
  );
}
