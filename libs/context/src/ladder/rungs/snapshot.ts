/** Rung 3: the middle as PNG pages, re-rendered each call from its source text. */
import type { SnapshotDecision } from '@arbor/domain/compaction';
import { imageTokens } from '../../tokens/image-tokens';
import { countTextTokens } from '../../tokens/text';
import { BLOCK_FRAMING_TOKENS, sha256 } from '../measure';
import { type MiddleCandidate, middleSegments, planMiddle } from '../middle';
import { ACK_TEXT } from '../placeholders';
import { SNAPSHOT_TEXT_FORMAT } from '../serialize';
import { type SnapshotShape, denserShape } from '../capabilities';
import type { LadderContext, LadderState } from '../state';
import { type ViewItem, renderSourceMessage } from '../view';
import { type Provisional, type RungRunner, commit, noop } from './common';
import { chooseMiddle, middleStart } from './range-common';
import { imageLimitProblems } from './strip-images';

/** Header + acknowledgement + message framing of one replacement (header text ~70 tokens). */
export const REPLACEMENT_OVERHEAD_TOKENS = 100 + countTextTokens(ACK_TEXT);

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

/** Legible pages kept at each end of a foveated segment (next to what is sent verbatim). */
export const FOVEA_PAGES = 2;

interface Plan {
  shape: SnapshotShape;
  dense: SnapshotShape | null;
}

function pagesFor(plan: Plan, chars: number): { legible: number; dense: number } {
  const zone = FOVEA_PAGES * plan.shape.charsPerPage;
  if (plan.dense === null || chars <= 3 * zone) {
    return { legible: Math.max(1, Math.ceil(chars / plan.shape.charsPerPage)), dense: 0 };
  }
  return {
    legible: 2 * FOVEA_PAGES + 1,
    dense: Math.ceil((chars - 2 * zone) / plan.dense.charsPerPage),
  };
}

function runsOf(
  ctx: LadderContext,
  plan: Plan,
  a: number,
  b: number,
  chars: (i: number) => number,
): { from: number; to: number; shape: SnapshotShape }[] {
  const whole = [{ from: a, to: b, shape: plan.shape }];
  if (plan.dense === null) return whole;
  const zone = FOVEA_PAGES * plan.shape.charsPerPage;
  let total = 0;
  for (let i = a; i < b; i++) total += chars(i);
  if (total <= 3 * zone) return whole;
  const boundary = ctx.source.shape.boundary;
  let h = a;
  for (let acc = 0; h < b && (acc < zone || !boundary[h]); h++) acc += chars(h);
  let u = b;
  for (let acc = 0; u > h && (acc < zone || !boundary[u]); u--) acc += chars(u - 1);
  if (h >= u) return whole;
  return [
    { from: a, to: h, shape: plan.shape },
    { from: h, to: u, shape: plan.dense },
    { from: u, to: b, shape: plan.shape },
  ];
}

export const snapshot: RungRunner = async (ctx, state, options) => {
  if (ctx.snapshotUnavailable !== null || ctx.shape === null || ctx.render === null) {
    return noop('snapshot', state, options, ctx.snapshotUnavailable ?? 'snapshots unavailable');
  }
  const shape = ctx.shape;
  const render = ctx.render;
  const tokensOf = (s: SnapshotShape) =>
    imageTokens(s, ctx.input.provider, ctx.input.model) + 2 * BLOCK_FRAMING_TOKENS;
  const start = middleStart(ctx, state, ['snapshot', 'summary', 'drop']);
  const chars = charsOf(ctx, state);
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
  const candidatesFor = (plan: Plan) =>
    planMiddle(ctx, state, {
      start,
      chars,
      cost: (n) => {
        const p = pagesFor(plan, n);
        const runs = p.dense > 0 ? 3 : 1;
        const added =
          runs * REPLACEMENT_OVERHEAD_TOKENS +
          p.legible * tokensOf(plan.shape) +
          (plan.dense === null ? 0 : p.dense * tokensOf(plan.dense));
        return { pages: p.legible + p.dense, added };
      },
    });
  let plan: Plan = { shape, dense: null };
  let candidates = candidatesFor(plan);
  if (candidates.length === 0) {
    return noop('snapshot', state, options, 'no history between the head and the tail to image');
  }
  let choice = chooseMiddle(ctx, state, candidates, feasible, options.force === true);
  // Foveated: the oldest stretch on the denser shape; pages next to head and tail stay legible.
  const dense = denserShape(shape);
  if (choice === null && dense !== null) {
    const foveated: Plan = { shape, dense };
    const again = candidatesFor(foveated);
    const pick = chooseMiddle(ctx, state, again, feasible, options.force === true);
    if (pick !== null) {
      plan = foveated;
      candidates = again;
      choice = pick;
    }
  }
  if (choice !== null && choice.segments === 0) {
    return noop('snapshot', state, options, 'nothing but kept messages before the tail');
  }
  if (choice === null) {
    const best = Math.min(...candidates.map((c) => state.measure.raw - c.removed + c.added));
    const how = dense === null ? '' : `, foveated with ${dense.name} too`;
    return noop(
      'snapshot',
      state,
      options,
      options.force
        ? `no middle worth imaging within ${pageCap} page(s)${how}`
        : `no middle within ${pageCap} page(s) makes it fit${how} (best ~${Math.ceil(best * ctx.factor)} tokens)`,
    );
  }
  const decisions: Provisional<SnapshotDecision>[] = [];
  const byShape = new Map<string, number>();
  let pages = 0;
  for (const [a0, b0] of middleSegments(ctx, start, choice.t)) {
    for (const run of runsOf(ctx, plan, a0, b0, chars)) {
      const covered = ctx.source.messages.slice(run.from, run.to);
      // The same text `snapshotSource` gives later calls: the view's rendering of the run.
      const text = ctx.serialize(
        covered.map((_, k) => renderSourceMessage(ctx.source, state.plan, run.from + k)),
      );
      const sourceHash = sha256(text);
      const id = ctx.input.newId();
      let rendered: readonly Buffer[];
      try {
        rendered = await render(text, run.shape.name);
      } catch (error) {
        return noop('snapshot', state, options, `rendering failed: ${(error as Error).message}`);
      }
      if (rendered.length === 0) {
        return noop('snapshot', state, options, 'renderer returned no page');
      }
      pages += rendered.length;
      byShape.set(run.shape.name, (byShape.get(run.shape.name) ?? 0) + rendered.length);
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
        shape: run.shape.name,
        pageCount: rendered.length,
        sourceChars: text.length,
        sourceHash,
        textFormat: SNAPSHOT_TEXT_FORMAT,
      });
    }
  }
  if (pages > pageCap) {
    return noop('snapshot', state, options, `rendered ${pages} pages, over the cap of ${pageCap}`);
  }
  const covered = decisions.reduce((n, d) => n + d.coveredIds.length, 0);
  const onto = [...byShape].map(([name, n]) => `${n} ${name}`).join(' + ');
  const details: Record<string, number | string> = {
    messages: covered,
    pages,
    segments: decisions.length,
    shape: shape.name,
  };
  if (byShape.size > 1 && dense !== null) {
    details.denseShape = dense.name;
    details.densePages = byShape.get(dense.name) ?? 0;
  }
  const result = await commit(
    ctx,
    state,
    options,
    decisions,
    `imaged ${covered} message(s) onto ${onto} page(s)${byShape.size > 1 ? ' (foveated)' : ''}`,
    details,
  );
  if (imageLimitProblems(ctx, result.state).length > imageLimitProblems(ctx, state).length) {
    return noop('snapshot', state, options, 'the rendered pages would break the image limits');
  }
  if (result.state.measure.raw >= state.measure.raw) {
    return noop('snapshot', state, options, 'the rendered pages cost more than the text');
  }
  return result;
};
