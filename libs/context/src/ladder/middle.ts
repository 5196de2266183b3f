// Head verbatim, middle replaced, tail verbatim; `planMiddle` prices every tail start in one
// pass (prefix sums, no serialization). The cut rules: README.md.
import type { LadderContext, LadderState } from './state';
import { type WindowShape, coverableRuns } from './window';

export interface SegmentCost {
  added: number;
  pages: number;
}

export interface MiddleCandidate {
  t: number;
  turnStart: boolean;
  segments: number;
  removed: number;
  added: number;
  pages: number;
  tailTokens: number;
}

export interface MiddleOptions {
  start: number;
  cost: (chars: number, tokens: number) => SegmentCost;
  chars?: (index: number) => number;
  shape?: WindowShape;
}

function tokensBySource(ctx: LadderContext, state: LadderState): Float64Array {
  const by = new Float64Array(ctx.source.messages.length + 1);
  state.items.forEach((item, i) => {
    by[item.from] += state.measure.stats[i].tokens;
  });
  return by;
}

export function planMiddle(
  ctx: LadderContext,
  state: LadderState,
  options: MiddleOptions,
): MiddleCandidate[] {
  const shape = options.shape ?? ctx.source.shape;
  const n = shape.n;
  const tokens = tokensBySource(ctx, state);
  const suffix = new Float64Array(n + 1);
  for (let i = n - 1; i >= 0; i--) suffix[i] = suffix[i + 1] + tokens[i];
  const inside = new Uint8Array(n + 1);
  for (const r of state.plan.ranges) for (let i = r.from + 1; i <= r.to; i++) inside[i] = 1;

  const out: MiddleCandidate[] = [];
  let closed = { removed: 0, added: 0, pages: 0, segments: 0 };
  let open: { tokens: number; chars: number } | null = null;
  const withOpen = () => {
    if (open === null) return closed;
    const c = options.cost(open.chars, open.tokens);
    return {
      removed: closed.removed + open.tokens,
      added: closed.added + c.added,
      pages: closed.pages + c.pages,
      segments: closed.segments + 1,
    };
  };
  // Tail starts before `start` are listed too, so a second forced call lands on the same tail.
  let i = Math.min(shape.headEnd, options.start);
  while (i < n) {
    let j = i + 1;
    while (j < n && !shape.boundary[j]) j++;
    if (j <= options.start) {
      if (j < n && inside[j] === 0 && j > shape.headEnd) {
        out.push({ t: j, turnStart: shape.turnStart[j], tailTokens: suffix[j], ...closed });
      }
      i = j;
      continue;
    }
    let coverable = true;
    let unitTokens = 0;
    let unitChars = 0;
    for (let k = i; k < j; k++) {
      if (shape.keep[k]) coverable = false;
      unitTokens += tokens[k];
      if (options.chars !== undefined) unitChars += options.chars(k);
    }
    if (coverable) {
      open = open ?? { tokens: 0, chars: 0 };
      open.tokens += unitTokens;
      open.chars += unitChars;
    } else if (open !== null) {
      closed = withOpen();
      open = null;
    }
    if (j < n && inside[j] === 0) {
      out.push({ t: j, turnStart: shape.turnStart[j], tailTokens: suffix[j], ...withOpen() });
    }
    i = j;
  }
  return out;
}

export const middleSegments = (
  ctx: LadderContext,
  start: number,
  t: number,
  shape: WindowShape = ctx.source.shape,
): [number, number][] => coverableRuns(shape, start, t);

/** Forced: the tail is the protected window; otherwise the smallest middle that reaches `goal`. */
export function chooseCandidate(
  candidates: readonly MiddleCandidate[],
  mode: { force: true; protect: number } | { force: false; fits: (c: MiddleCandidate) => boolean },
  feasible: (c: MiddleCandidate) => boolean,
): MiddleCandidate | null {
  const usable = candidates.filter(feasible);
  if (!mode.force) {
    return (
      usable.find((c) => c.turnStart && mode.fits(c)) ?? usable.find((c) => mode.fits(c)) ?? null
    );
  }
  const inWindow = (c: MiddleCandidate) => c.tailTokens <= mode.protect;
  const pick =
    candidates.find((c) => c.turnStart && inWindow(c)) ??
    candidates.find(inWindow) ??
    candidates[candidates.length - 1];
  if (pick === undefined) return null;
  if (pick.segments === 0 || feasible(pick)) return pick;
  const earlier = usable.filter((c) => c.t < pick.t);
  return earlier[earlier.length - 1] ?? null;
}
