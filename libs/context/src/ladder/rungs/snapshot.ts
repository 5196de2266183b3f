/**
 * Rung 3 — snapshots: the middle of the history, serialized to text, rendered onto PNG pages in
 * the model's page shape and sent as images. Head verbatim, middle imaged, tail verbatim. Free
 * (no model call), lossless in words, but only for models that read images.
 *
 * The middle is the smallest that makes the request fit (more middle = fewer tokens), or when
 * forced (snapshot mode) everything but the protected recent window. Pages are capped by
 * `maxSnapshotPages`, the provider's image count, and the request's image bytes (checked on the
 * rendered pages). Each decision records range, shape, page count and the sha256 of the source
 * text; later calls render the same pages again from that source (never from these images).
 */
import type { SnapshotDecision } from '@arbor/domain/compaction';
import { imageTokens } from '../../tokens/image-tokens';
import { countTextTokens } from '../../tokens/text';
import { BLOCK_FRAMING_TOKENS, sha256 } from '../measure';
import { type MiddleCandidate, middleSegments, planMiddle } from '../middle';
import { ACK_TEXT } from '../placeholders';
import { SNAPSHOT_TEXT_FORMAT } from '../serialize';
import type { LadderContext, LadderState } from '../state';
import { type ViewItem, renderSourceMessage } from '../view';
import { type Provisional, type RungRunner, commit, noop } from './common';
import { chooseMiddle, middleStart } from './range-common';
import { imageLimitProblems } from './strip-images';

/** Header + acknowledgement + message framing of one replacement (header text ~70 tokens). */
export const REPLACEMENT_OVERHEAD_TOKENS = 100 + countTextTokens(ACK_TEXT);

/** Serialized length of each message as the view renders it (cached per rendering). */
function charsOf(ctx: LadderContext, state: LadderState) {
  const custom = ctx.input.serialize !== undefined ? ':custom' : '';
  const byIndex = new Map<number, ViewItem>();
  for (const item of state.items) if (item.kind === 'source') byIndex.set(item.from, item);
  return (index: number): number => {
    const item = byIndex.get(index);
    if (item === undefined) return 0;
    const key = `chars|${ctx.measure.conversationId}|${item.key}${custom}`;
    const hit = ctx.cache.numbers.get(key);
    if (hit !== undefined) return hit;
    const value = ctx.serialize([item.message]).length + 1;
    ctx.cache.numbers.set(key, value);
    return value;
  };
}

export const snapshot: RungRunner = async (ctx, state, options) => {
  if (ctx.snapshotUnavailable !== null || ctx.shape === null || ctx.render === null) {
    return noop('snapshot', state, options, ctx.snapshotUnavailable ?? 'snapshots unavailable');
  }
  const shape = ctx.shape;
  const render = ctx.render;
  const pageTokens =
    imageTokens(shape, ctx.input.provider, ctx.input.model) + 2 * BLOCK_FRAMING_TOKENS;
  const start = middleStart(ctx, state, ['snapshot', 'summary', 'drop']);
  const candidates = planMiddle(ctx, state, {
    start,
    chars: charsOf(ctx, state),
    cost: (chars) => {
      const pages = Math.max(1, Math.ceil(chars / shape.charsPerPage));
      return { pages, added: REPLACEMENT_OVERHEAD_TOKENS + pages * pageTokens };
    },
  });
  if (candidates.length === 0) {
    return noop('snapshot', state, options, 'no history between the head and the tail to image');
  }
  // Pages already in the request count against both caps.
  const pagesInForce = state.measure.stats.reduce(
    (n, s, i) => n + (state.items[i].kind === 'snapshot' ? s.images : 0),
    0,
  );
  const pageCap = Math.max(
    0,
    Math.min(ctx.caps.maxSnapshotPages - pagesInForce, ctx.limits.maxImages - state.measure.images),
  );
  const feasible = (c: MiddleCandidate) =>
    c.segments > 0 && c.pages <= pageCap && c.added < c.removed;
  const choice = chooseMiddle(ctx, state, candidates, feasible, options.force === true);
  if (choice !== null && choice.segments === 0) {
    return noop('snapshot', state, options, 'nothing but kept messages before the tail');
  }
  if (choice === null) {
    const best = Math.min(...candidates.map((c) => state.measure.raw - c.removed + c.added));
    return noop(
      'snapshot',
      state,
      options,
      options.force
        ? `no middle worth imaging within ${pageCap} page(s)`
        : `no middle within ${pageCap} page(s) makes it fit (best ~${Math.ceil(best * ctx.factor)} tokens)`,
    );
  }
  const decisions: Provisional<SnapshotDecision>[] = [];
  let pages = 0;
  for (const [a, b] of middleSegments(ctx, start, choice.t)) {
    const covered = ctx.source.messages.slice(a, b);
    // The same text `snapshotSource` gives later calls: the view's rendering of the run.
    const text = ctx.serialize(
      covered.map((_, k) => renderSourceMessage(ctx.source, state.plan, a + k)),
    );
    const sourceHash = sha256(text);
    const id = ctx.input.newId();
    let rendered: readonly Buffer[];
    try {
      rendered = await render(text, shape.name);
    } catch (error) {
      return noop('snapshot', state, options, `rendering failed: ${(error as Error).message}`);
    }
    if (rendered.length === 0) return noop('snapshot', state, options, 'renderer returned no page');
    pages += rendered.length;
    ctx.pages.put({ id, sourceHash }, rendered);
    decisions.push({
      id,
      rung: 'snapshot',
      trigger: options.trigger,
      provider: ctx.input.provider,
      model: ctx.input.model,
      fromId: covered[0].id,
      toId: covered[covered.length - 1].id,
      coveredIds: covered.map((m) => m.id),
      shape: shape.name,
      pageCount: rendered.length,
      sourceChars: text.length,
      sourceHash,
      textFormat: SNAPSHOT_TEXT_FORMAT,
    });
  }
  if (pages > pageCap) {
    return noop('snapshot', state, options, `rendered ${pages} pages, over the cap of ${pageCap}`);
  }
  const covered = decisions.reduce((n, d) => n + d.coveredIds.length, 0);
  const result = await commit(
    ctx,
    state,
    options,
    decisions,
    `imaged ${covered} message(s) onto ${pages} ${shape.name} page(s)`,
    { messages: covered, pages, segments: decisions.length, shape: shape.name },
  );
  if (imageLimitProblems(ctx, result.state).length > imageLimitProblems(ctx, state).length) {
    return noop('snapshot', state, options, 'the rendered pages would break the image limits');
  }
  if (result.state.measure.raw >= state.measure.raw) {
    return noop('snapshot', state, options, 'the rendered pages cost more than the text');
  }
  return result;
};
