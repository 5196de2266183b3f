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

export const windowCut = (state: ConversationState): string | null =>
  state.resume !== null && state.resume.tip === state.tip ? state.resume.cutAt : null;

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
  decisions: readonly CompactionDecision[];
  inForce: string[];
  notInForce: { decisionId: string; reason: string }[];
}

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
