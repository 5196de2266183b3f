/**
 * What "the conversation as of revision N" answers, read from a replayed fold with the same query
 * functions the live reads use, in the same shapes as the live endpoints (`GET .../{id}`,
 * `.../tree`, `.../checkpoints`, `.../messages`, `.../retry`). Pure: no Nest, no store.
 */
import { analyzeWindow, planView } from '@arbor/context';
import {
  type CompactionDecision,
  type ConversationState,
  type Message,
  type ResumeRecord,
} from '@arbor/domain';
import { type CheckpointRow, type ConversationQueries, type TreeNode } from '@arbor/projections';

import { conversationView } from '../conversations/views';

export { conversationView };

/** Same shape as `GET /v1/conversations/{id}/tree`. */
export const treeView = (
  queries: ConversationQueries,
  tenantId: string,
  id: string,
  tip: string | null,
): {
  tip: string | null;
  nodes: TreeNode[];
  branchPoints: string[];
  checkpoints: CheckpointRow[];
} => {
  const nodes = queries.tree(tenantId, id);
  return {
    tip,
    nodes,
    branchPoints: nodes.filter((n) => n.children.length > 1).map((n) => n.id),
    checkpoints: queries.checkpoints(tenantId, id),
  };
};

/** The first message of the live window: the resume cut while the tip is the one it cut at. */
export const windowCut = (state: ConversationState): string | null =>
  state.resume !== null && state.resume.tip === state.tip ? state.resume.cutAt : null;

/** The active branch from `fromDepth` to the tip, every page. */
export const readBranch = async (
  queries: ConversationQueries,
  tenantId: string,
  id: string,
  fromDepth: number,
): Promise<Message[]> => {
  const out: Message[] = [];
  for (let from: number | null = fromDepth; from !== null;) {
    const page = await queries.activeBranchPage(tenantId, id, from, 2000);
    out.push(...page.items);
    from = page.nextDepth;
  }
  return out;
};

export interface CompactionsView {
  /** Every decision recorded up to N, oldest first. */
  decisions: readonly CompactionDecision[];
  /** Ids of the decisions that apply to the live window at N (a snapshot also needs a page
   * renderer and a model that reads images when a context is assembled). */
  inForce: string[];
  notInForce: { decisionId: string; reason: string }[];
}

/** Which recorded decisions apply to a window, by the ladder's own rules (`planView`). */
export const compactionsFor = (
  conversationId: string,
  window: readonly Message[],
  recorded: readonly CompactionDecision[],
  revokedIds: readonly string[] = [],
): CompactionsView => {
  const revoked = new Set(revokedIds);
  const decisions = recorded;
  const live = recorded.filter((d) => !revoked.has(d.id));
  const revokedOut = recorded
    .filter((d) => revoked.has(d.id))
    .map((d) => ({ decisionId: d.id, reason: 'revoked' }));
  if (window.length === 0) {
    return {
      decisions,
      inForce: [],
      notInForce: [
        ...revokedOut,
        ...live.map((d) => ({ decisionId: d.id, reason: 'the window is empty' })),
      ],
    };
  }
  const plan = planView(
    {
      conversationId,
      messages: window,
      indexById: new Map(window.map((m, i) => [m.id, i])),
      shape: analyzeWindow(window),
    },
    live,
  );
  return {
    decisions,
    inForce: live.filter((d) => plan.applied.has(d.id)).map((d) => d.id),
    notInForce: [...revokedOut, ...plan.notApplied],
  };
};

/** Stream revision only: tenant answers carry no global positions. */
export interface ReplayEventRef {
  revision: number;
  type: string;
  timestamp: string;
}

export interface ReplayAnswer {
  conversationId: string;
  revision: number;
  event: ReplayEventRef;
  conversation: ReturnType<typeof conversationView>;
  tip: string | null;
  branch: { length: number; items: Message[]; nextDepth: number | null };
  tree: ReturnType<typeof treeView>;
  checkpoints: CheckpointRow[];
  window: { cutAt: string | null; tip: string | null; messages: number };
  resume: ResumeRecord | null;
  compactions: CompactionsView;
  pendingFailure: { failureId: string; input: unknown; error: unknown } | null;
  lastContext: { contextId: string; revision: number } | null;
}

export interface ReplayAnswerInput {
  tenantId: string;
  conversationId: string;
  event: ReplayEventRef;
  queries: ConversationQueries;
  state: ConversationState;
  page: { fromDepth: number; limit: number };
  lastContext: { contextId: string; revision: number } | null;
}

/** The whole answer for revision N from a fold stopped there. */
export const replayAnswer = async (input: ReplayAnswerInput): Promise<ReplayAnswer> => {
  const { tenantId, conversationId: id, queries, state } = input;
  const row = queries.getConversation(tenantId, id);
  if (row === null) throw new Error(`replay: ${id} has no ConversationStarted before it`);
  const tip = row.tip;
  const length = tip === null ? 0 : (queries.depthOf(tenantId, id, tip) ?? -1) + 1;
  const page = await queries.activeBranchPage(tenantId, id, input.page.fromDepth, input.page.limit);
  const cut = windowCut(state);
  const window =
    tip === null
      ? []
      : await readBranch(
          queries,
          tenantId,
          id,
          cut === null ? 0 : (queries.depthOf(tenantId, id, cut) ?? 0),
        );
  return {
    conversationId: id,
    revision: input.event.revision,
    event: input.event,
    conversation: conversationView(row),
    tip,
    branch: { length, items: page.items, nextDepth: page.nextDepth },
    tree: treeView(queries, tenantId, id, tip),
    checkpoints: queries.checkpoints(tenantId, id),
    window: { cutAt: window[0]?.id ?? null, tip, messages: window.length },
    resume: state.resume,
    compactions: compactionsFor(id, window, state.compactions, state.revokedCompactions),
    pendingFailure: queries.pendingFailure(tenantId, id),
    lastContext: input.lastContext,
  };
};
