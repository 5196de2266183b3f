/**
 * Rung 5 — drop, the last resort: the oldest part of the middle is left out of the request.
 * Runs after the summary (or in its place when no summarizer is configured or it failed), never
 * when the request says `allowDrop: false`. The log keeps every message; the request carries one
 * short marker per dropped run naming its ids and its size, and the decision records the range
 * and its tokens, so the receipt says exactly what went.
 *
 * Where it cuts, in order, the first that makes the request fit:
 * 1. after the last range already in force (the earlier bytes, and the provider's cache, stay);
 * 2. from just after the head (ranges in force inside are superseded: the prefix changes);
 * 3. from just after the leading system messages: the first prompt may go too.
 * System and pinned messages and the current prompt are never dropped; the tail may start inside
 * the last turn (at a tool-unit boundary). So only when the system prompt, the tools, those
 * messages and the last tool unit alone are over the target does nothing fit.
 */
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

/** Uncalibrated tokens of the rendered items that begin inside [a, b). */
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
