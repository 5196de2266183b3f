/**
 * Where the range rungs cut: head verbatim, middle replaced, tail verbatim.
 *
 * The middle runs from `start` (just after the head, or after the last range already in force)
 * to a tail start `t`. Inside it, tool units holding a message kept verbatim (system, pinned,
 * the current prompt) stay, so the middle may be several segments, each replaced by one user
 * message (+ an acknowledgement). A tail start is a tool-unit boundary that is not inside a
 * range in force; turn starts (a user prompt) are preferred, a boundary inside the last turn
 * (the tail then opens with an assistant message, after the replacement's user message) is the
 * fallback for a last turn too long to keep whole.
 *
 * `planMiddle` prices every tail start in one pass (prefix sums, no serialization): tokens the
 * middle's segments remove, tokens their replacements add (`cost`), pages, and the tail left.
 * A candidate may have no segment (only kept messages before it): a forced rung that lands
 * there has nothing to do, which keeps a second call with the same mode from reaching further.
 */
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
  /** Tokens of the items from `t` to the end (the tail kept verbatim). */
  tailTokens: number;
}

export interface MiddleOptions {
  start: number;
  /** Price of one segment's replacement, from its serialized length and its tokens. */
  cost: (chars: number, tokens: number) => SegmentCost;
  /** Serialized length of a source message (only when the cost depends on it). */
  chars?: (index: number) => number;
  /** The cut rules (default: the window's; the drop rung passes `dropShape`). */
  shape?: WindowShape;
}

/** Item tokens by source index: each rendered item counts at the first message it covers. */
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
  // Tail starts before `start` are listed too, with an empty middle: a forced rung picks its
  // tail by position in the whole window, so a second call lands on the same tail.
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

/** The segments of the middle [start, t): maximal runs of coverable tool units. */
export const middleSegments = (
  ctx: LadderContext,
  start: number,
  t: number,
  shape: WindowShape = ctx.source.shape,
): [number, number][] => coverableRuns(shape, start, t);

/**
 * The candidate a rung takes.
 * - forced: the tail is the protected recent window — the earliest tail start whose tail fits
 *   in `protect` (a turn start if any), or the latest candidate when even the last turn is
 *   bigger; then moved later only if `feasible` says so (never past it: fewer pages).
 * - otherwise: the smallest middle that brings the request under `goal` — turn starts first.
 */
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
