/** A boundary never separates a tool_use from its results; kept messages are never covered. */
import type { Message } from '@arbor/domain/messages';

export interface WindowShape {
  readonly n: number;
  readonly boundary: readonly boolean[];
  readonly turnStart: readonly boolean[];
  readonly headEnd: number;
  readonly keep: readonly boolean[];
  /** The drop rung's shape: the head's first prompt may go too. */
  readonly drop: { readonly headEnd: number; readonly keep: readonly boolean[] };
}

const hasToolUse = (m: Message): boolean => m.content.some((b) => b.type === 'tool_use');
const hasToolResult = (m: Message): boolean => m.content.some((b) => b.type === 'tool_result');

export function analyzeWindow(messages: readonly Message[]): WindowShape {
  const n = messages.length;
  const boundary = messages.map(
    (m, i) => i === 0 || (!hasToolUse(messages[i - 1]) && !hasToolResult(m)),
  );
  boundary.push(true); // the end of the window
  const turnStart = messages.map((m, i) => boundary[i] && m.role === 'user');
  let headEnd = 0;
  while (headEnd < n && messages[headEnd].role === 'system') headEnd++;
  const systemEnd = headEnd;
  headEnd = headEnd < n && turnStart[headEnd] ? headEnd + 1 : 0;
  const keep = messages.map((m, i) => i < headEnd || m.role === 'system' || m.pinned === true);
  const dropKeep = messages.map((m) => m.role === 'system' || m.pinned === true);
  let current = headEnd > 0 ? headEnd - 1 : -1; // the head's prompt, unless a later one opens
  for (let i = n - 1; i >= headEnd; i--) {
    if (turnStart[i]) {
      keep[i] = true;
      current = i;
      break;
    }
  }
  if (current >= 0) dropKeep[current] = true;
  return { n, boundary, turnStart, headEnd, keep, drop: { headEnd: systemEnd, keep: dropKeep } };
}

export const dropShape = (shape: WindowShape): WindowShape => ({
  ...shape,
  headEnd: shape.drop.headEnd,
  keep: shape.drop.keep,
});

export function coverableRuns(shape: WindowShape, from: number, to: number): [number, number][] {
  const runs: [number, number][] = [];
  let i = from;
  let open = -1;
  while (i < to) {
    let j = i + 1;
    while (j < to && !shape.boundary[j]) j++;
    let coverable = shape.boundary[j] || j === shape.n;
    for (let k = i; k < j && coverable; k++) if (shape.keep[k]) coverable = false;
    if (coverable && open < 0) open = i;
    if (!coverable && open >= 0) {
      runs.push([open, i]);
      open = -1;
    }
    i = j;
  }
  if (open >= 0) runs.push([open, to]);
  return runs;
}
