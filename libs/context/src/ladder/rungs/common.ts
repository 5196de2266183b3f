import type { CompactionDecision, CompactionTrigger, Rung } from '@arbor/domain/compaction';
import { type LadderContext, type LadderState, buildState, changesSentPrefix } from '../state';
import { PLACEHOLDERS } from '../placeholders';
import type { RungReceipt } from '../types';

export interface StepOptions {
  /** Act even though the request fits (shake, snapshot and compact modes). */
  force: boolean;
  trigger: CompactionTrigger;
}

export interface RungResult {
  receipt: RungReceipt;
  state: LadderState;
  added: CompactionDecision[];
}

export type RungRunner = (
  ctx: LadderContext,
  state: LadderState,
  options: StepOptions,
) => Promise<RungResult>;

export function noop(
  rung: Rung,
  state: LadderState,
  options: StepOptions,
  reason: string,
): RungResult {
  return {
    state,
    added: [],
    receipt: {
      rung,
      applied: false,
      trigger: options.trigger,
      reason,
      tokensBefore: state.tokens,
      tokensAfter: state.tokens,
      cachedPrefixChanged: false,
      decisionIds: [],
    },
  };
}

export type Provisional<D extends CompactionDecision = CompactionDecision> = Omit<
  D,
  'tokensBefore' | 'tokensAfter' | 'cachedPrefixChanged'
>;

export async function commit(
  ctx: LadderContext,
  state: LadderState,
  options: StepOptions,
  provisional: readonly Provisional[],
  reason: string,
  details?: Record<string, number | string>,
): Promise<RungResult> {
  const rung = provisional[0].rung;
  const numbers = {
    tokensBefore: state.tokens,
    tokensAfter: state.tokens,
    cachedPrefixChanged: false,
  };
  const trial = await buildState(ctx, [
    ...state.decisions,
    ...provisional.map(
      (d) => ({ ...d, ...numbers, placeholders: PLACEHOLDERS }) as CompactionDecision,
    ),
  ]);
  const changed = changesSentPrefix(ctx, state.items, trial.items);
  const added = provisional.map(
    (d) =>
      ({
        ...d,
        tokensBefore: state.tokens,
        tokensAfter: trial.tokens,
        cachedPrefixChanged: changed,
        placeholders: PLACEHOLDERS,
      }) as CompactionDecision,
  );
  const next = await buildState(ctx, [...state.decisions, ...added]);
  return {
    state: next,
    added,
    receipt: {
      rung,
      applied: true,
      trigger: options.trigger,
      reason,
      tokensBefore: state.tokens,
      tokensAfter: next.tokens,
      cachedPrefixChanged: changed,
      decisionIds: added.map((d) => d.id),
      ...(details !== undefined ? { details } : {}),
    },
  };
}

/** Share of the target the protected recent window may take at most (small budgets). */
export const PROTECT_MAX_SHARE = 0.25;

export function protectedTokens(ctx: LadderContext): number {
  return Math.min(ctx.caps.protectTokens, Math.floor(ctx.target * PROTECT_MAX_SHARE));
}

export function protectedFrom(state: LadderState, protect: number): number {
  const stats = state.measure.stats;
  let i = stats.length - 1;
  let total = stats[i]?.tokens ?? 0;
  while (i > 0 && total + stats[i - 1].tokens <= protect) {
    i--;
    total += stats[i].tokens;
  }
  return Math.max(0, i);
}
