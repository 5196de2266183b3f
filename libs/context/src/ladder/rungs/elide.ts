/** Rung 1: old tool results become placeholders keeping the `tool_use_id` pairing (README.md). */
import type { ElidedResult, ElisionDecision } from '@arbor/domain/compaction';
import type { Message, ToolResultBlock } from '@arbor/domain/messages';
import { blockTokens } from '../measure';
import { elidedResultText } from '../placeholders';
import { type LadderContext, fitsTarget } from '../state';
import {
  type Provisional,
  type RungRunner,
  commit,
  noop,
  protectedFrom,
  protectedTokens,
} from './common';

interface Candidate {
  result: ElidedResult;
  saving: number;
}

function cachedNumber(ctx: LadderContext, key: string, compute: () => number): number {
  const full = `${ctx.measure.conversationId}|${ctx.input.provider}|${ctx.input.model}|${key}`;
  const hit = ctx.cache.numbers.get(full);
  if (hit !== undefined) return hit;
  const value = compute();
  ctx.cache.numbers.set(full, value);
  return value;
}

function toolName(ctx: LadderContext, index: number, toolUseId: string): string | undefined {
  const call = ctx.source.messages[index - 1]?.content.find(
    (b) => b.type === 'tool_use' && b.id === toolUseId,
  );
  return call?.type === 'tool_use' ? call.name : undefined;
}

function candidate(
  ctx: LadderContext,
  message: Message,
  index: number,
  block: ToolResultBlock,
): Candidate | null {
  const key = `res:${message.id}:${block.tool_use_id}`;
  const originalTokens = cachedNumber(ctx, key, () => blockTokens(block, ctx.measure));
  const result: ElidedResult = {
    messageId: message.id,
    toolUseId: block.tool_use_id,
    originalTokens,
  };
  const placeholder = cachedNumber(ctx, `${key}:ph`, () =>
    blockTokens(
      {
        type: 'tool_result',
        tool_use_id: block.tool_use_id,
        content: elidedResultText(null, result, toolName(ctx, index, block.tool_use_id)),
      },
      ctx.measure,
    ),
  );
  const saving = originalTokens - placeholder;
  return saving > 0 ? { result, saving } : null;
}

export const elide: RungRunner = async (ctx, state, options) => {
  const end = protectedFrom(state, protectedTokens(ctx));
  const candidates: Candidate[] = [];
  for (let i = 0; i < end; i++) {
    const item = state.items[i];
    if (item.kind !== 'source') continue;
    const message = ctx.source.messages[item.from];
    if (message.role !== 'user' || message.pinned === true) continue;
    const done = state.plan.elided.get(message.id);
    for (const block of message.content) {
      if (block.type !== 'tool_result' || block.is_error === true) continue;
      if (done?.has(block.tool_use_id)) continue;
      const c = candidate(ctx, message, item.from, block);
      if (c !== null) candidates.push(c);
    }
  }
  if (candidates.length === 0) {
    return noop('elide', state, options, 'no tool result outside the protected window to elide');
  }
  const minSavings = ctx.caps.minElisionSavings;
  const available = candidates.reduce((sum, c) => sum + c.saving, 0);
  const chosen: Candidate[] = [];
  let saved = 0;
  for (const c of candidates) {
    const fits = fitsTarget(ctx, state.measure.raw - saved);
    if (!options.force && fits && saved >= Math.min(minSavings, available)) break;
    chosen.push(c);
    saved += c.saving;
  }
  if (!options.force && saved < minSavings && !fitsTarget(ctx, state.measure.raw - saved)) {
    return noop(
      'elide',
      state,
      options,
      `eliding would save only ~${saved} tokens (< ${minSavings}) and still not fit`,
    );
  }
  const decision: Provisional<ElisionDecision> = {
    id: ctx.input.newId(),
    rung: 'elide',
    trigger: options.trigger,
    provider: ctx.input.provider,
    model: ctx.input.model,
    results: chosen.map((c) => c.result),
  };
  return commit(
    ctx,
    state,
    options,
    [decision],
    `elided ${chosen.length} old tool result(s), ~${saved} tokens`,
    { results: chosen.length, savedTokens: saved },
  );
};
