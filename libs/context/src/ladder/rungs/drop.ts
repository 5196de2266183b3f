// Rung 5, the last resort: the oldest middle is left out (the log keeps it), one marker per run.
// System and pinned messages and the current prompt are never dropped (README.md).
import type { DropDecision } from '@arbor/domain/compaction';
import { countTextTokens } from '../../tokens/text';
import { type MiddleCandidate, middleSegments, planMiddle } from '../middle';
import { ACK_TEXT } from '../placeholders';
import type { LadderContext, LadderState } from '../state';
import { type WindowShape, dropShape } from '../window';
import { type Provisional, type RungRunner, commit, noop } from './common';
import { chooseMiddle, middleStart } from './range-common';

/** The marker (~45 tokens with long ids) + acknowledgement + message framing. */
export const DROP_OVERHEAD_TOKENS = 80 + countTextTokens(ACK_TEXT);

function tokensIn(state: LadderState, a: number, b: number): number {
  let total = 0;
  state.items.forEach((item, i) => {
    if (item.from >= a && item.from < b) total += state.measure.stats[i].tokens;
  });
  return total;
}

interface Cut {
  start: number;
  shape: WindowShape;
  choice: MiddleCandidate;
}

function findCut(ctx: LadderContext, state: LadderState): Cut | null {
  const normal = ctx.source.shape;
  const loose = dropShape(normal);
  const tries: { start: number; shape: WindowShape }[] = [
    { start: middleStart(ctx, state, ['snapshot', 'summary', 'drop']), shape: normal },
    { start: normal.headEnd, shape: normal },
    { start: loose.headEnd, shape: loose },
  ];
  const feasible = (c: MiddleCandidate) => c.segments > 0 && c.added < c.removed;
  for (const { start, shape } of tries) {
    const candidates = planMiddle(ctx, state, {
      start,
      shape,
      cost: () => ({ added: DROP_OVERHEAD_TOKENS, pages: 0 }),
    });
    const choice = chooseMiddle(ctx, state, candidates, feasible, false);
    if (choice !== null && choice.segments > 0) return { start, shape, choice };
  }
  return null;
}

export const drop: RungRunner = async (ctx, state, options) => {
  if (ctx.input.allowDrop === false) {
    return noop('drop', state, options, 'dropping history is not allowed (allowDrop: false)');
  }
  const cut = findCut(ctx, state);
  if (cut === null) {
    return noop(
      'drop',
      state,
      options,
      'even with everything but the system and pinned messages, the current prompt and the ' +
        'last tool unit dropped, the request is over the target',
    );
  }
  const decisions: Provisional<DropDecision>[] = [];
  let tokens = 0;
  for (const [a, b] of middleSegments(ctx, cut.start, cut.choice.t, cut.shape)) {
    const covered = ctx.source.messages.slice(a, b);
    const droppedTokens = tokensIn(state, a, b);
    tokens += droppedTokens;
    decisions.push({
      id: ctx.input.newId(),
      rung: 'drop',
      trigger: options.trigger,
      provider: ctx.input.provider,
      model: ctx.input.model,
      fromId: covered[0].id,
      toId: covered[covered.length - 1].id,
      coveredIds: covered.map((m) => m.id),
      droppedTokens,
    });
  }
  const count = decisions.reduce((n, d) => n + d.coveredIds.length, 0);
  const ranges = decisions.map((d) => `${d.fromId} … ${d.toId} (~${d.droppedTokens} tokens)`);
  return commit(
    ctx,
    state,
    options,
    decisions,
    `dropped ${count} message(s), ~${tokens} tokens: ${ranges.join('; ')}`,
    {
      messages: count,
      tokens,
      segments: decisions.length,
      fromId: decisions[0].fromId,
      toId: decisions[decisions.length - 1].toId,
    },
  );
};
