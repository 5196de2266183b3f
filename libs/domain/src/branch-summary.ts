/** A tip move with `summarize` records the left path's summary; later contexts carry it. */
import { type Message } from './messages';
import { pmapGet, type PMap } from './persistent-map';
import { type ConversationState, type MessageNode } from './state';

export const BRANCH_SUMMARY_VERSION = 1;

/** The data of `BranchSummarized`: one summary of an abandoned path. */
export interface BranchSummary {
  readonly version: typeof BRANCH_SUMMARY_VERSION;
  readonly summaryId: string;
  /** The common ancestor of the old and the new tip: the branch point. */
  readonly ancestorId: string;
  readonly fromTip: string;
  readonly toTip: string;
  /** The abandoned path: ancestor (exclusive) → old tip, root → tip order. */
  readonly abandonedIds: readonly string[];
  /** First message after the branch point on the new path (null: the new tip is that point). */
  readonly ontoId: string | null;
  readonly summary: string;
  readonly instruction: string | null;
  readonly tokens: number;
  readonly summarizerModel: string;
  readonly windows: number;
}

export type AbandonedPath =
  | {
      readonly ok: true;
      readonly ancestorId: string;
      readonly abandonedIds: readonly string[];
      readonly ontoId: string | null;
    }
  | { readonly ok: false; readonly reason: 'no_common_ancestor' | 'nothing_abandoned' };

export function pathIds(nodes: PMap<MessageNode>, id: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  let at: string | null = id;
  while (at !== null && !seen.has(at)) {
    seen.add(at);
    out.push(at);
    at = pmapGet(nodes, at)?.parentId ?? null;
  }
  return out.reverse();
}

/** Nothing is abandoned when the old tip is on the new tip's path (moving down). */
export function abandonedPath(
  state: Pick<ConversationState, 'messages'>,
  fromTip: string,
  toTip: string,
): AbandonedPath {
  const from = pathIds(state.messages, fromTip);
  const to = pathIds(state.messages, toTip);
  let common = 0;
  while (common < from.length && common < to.length && from[common] === to[common]) common++;
  if (common === 0) return { ok: false, reason: 'no_common_ancestor' };
  const abandonedIds = from.slice(common);
  if (abandonedIds.length === 0) return { ok: false, reason: 'nothing_abandoned' };
  return {
    ok: true,
    ancestorId: from[common - 1],
    abandonedIds,
    ontoId: to[common] ?? null,
  };
}

/** The branch point is on the path, and the path goes on through the branch it was made for. */
export function summaryApplies(summary: BranchSummary, path: readonly string[]): boolean {
  const at = path.indexOf(summary.ancestorId);
  if (at < 0) return false;
  const next = path[at + 1] ?? null;
  if (summary.ontoId !== null) return next === summary.ontoId;
  return next !== summary.abandonedIds[0];
}

export const branchSummaryMessageId = (summaryId: string): string => `branch-summary-${summaryId}`;

export function branchSummaryText(summary: BranchSummary): string {
  return [
    `[Branch summary: the conversation went back to this point. A branch of ` +
      `${summary.abandonedIds.length} message(s) after it was left; this is what it tried and ` +
      'learned. It is context, not a request.]',
    '<branch_summary>',
    summary.summary,
    '</branch_summary>',
  ].join('\n');
}

export interface PlacedBranchSummary {
  readonly summaryId: string;
  readonly afterId: string;
  readonly messageId: string;
}

const hasToolUse = (m: Message): boolean =>
  m.role === 'assistant' && m.content.some((b) => b.type === 'tool_use');
const hasToolResult = (m: Message): boolean => m.content.some((b) => b.type === 'tool_result');

/** A branch point's tool calls keep their results next to them: the summary goes after. */
export function withBranchSummaries(
  window: readonly Message[],
  summaries: readonly BranchSummary[],
  only?: readonly { summaryId: string; afterId: string }[],
): { messages: Message[]; placed: PlacedBranchSummary[] } {
  const ids = window.map((m) => m.id);
  const chosen: { summary: BranchSummary; afterId: string }[] = [];
  if (only !== undefined) {
    for (const p of only) {
      const summary = summaries.find((s) => s.summaryId === p.summaryId);
      if (summary !== undefined && ids.includes(p.afterId))
        chosen.push({ summary, afterId: p.afterId });
    }
  } else {
    for (const summary of summaries) {
      if (!summaryApplies(summary, ids)) continue;
      let at = ids.indexOf(summary.ancestorId);
      if (hasToolUse(window[at])) {
        while (at + 1 < window.length && hasToolResult(window[at + 1])) at++;
      }
      chosen.push({ summary, afterId: ids[at] });
    }
  }
  if (chosen.length === 0) return { messages: [...window], placed: [] };
  const out: Message[] = [];
  const placed: PlacedBranchSummary[] = [];
  for (const m of window) {
    out.push(m);
    for (const c of chosen.filter((x) => x.afterId === m.id)) {
      const messageId = branchSummaryMessageId(c.summary.summaryId);
      out.push({
        id: messageId,
        parentId: m.id,
        role: 'user',
        content: [{ type: 'text', text: branchSummaryText(c.summary) }],
        metadata: { arbor: { branchSummary: c.summary.summaryId } },
        turnId: m.turnId,
        createdAt: m.createdAt,
      });
      placed.push({ summaryId: c.summary.summaryId, afterId: m.id, messageId });
    }
  }
  return { messages: out, placed };
}
