/**
 * A small, independent model of Arbor's conversation tree, for the model-based e2e test
 * (test/tree-model.e2e-spec.ts). Plain maps and arrays; nothing here imports the app or the
 * domain library, so a bug there cannot hide in the model. Message ids come from the server (the
 * model records what the server returned after checking it is fresh).
 */

export type Role = 'user' | 'assistant';

export interface MBlock {
  type: 'text' | 'tool_use' | 'tool_result';
  [k: string]: unknown;
}

export interface MMessage {
  role: Role;
  content: MBlock[];
}

export interface MNode {
  id: string;
  parentId: string | null;
  role: Role;
  content: MBlock[];
  turnId: string;
  /** Ends a turn: an assistant message without tool_use. */
  boundary: boolean;
  hasToolUse: boolean;
  hasToolResult: boolean;
}

export type CheckpointStatus = 'active' | 'rewound' | 'dropped';

export interface MCheckpoint {
  label: string;
  messageId: string;
  status: CheckpointStatus;
  reason?: string;
  digest?: string;
}

/** A turn committed in this conversation (not copied by a fork): what a retry must resend. */
export interface MTurn {
  turnId: string;
  parentId: string | null;
  messages: MMessage[];
  messageIds: string[];
  tip: string;
}

export interface MFailure {
  input: unknown;
  error: unknown;
}

export interface MConv {
  id: string;
  /** Every message, in the order the server appended them. */
  nodes: Map<string, MNode>;
  tip: string | null;
  checkpoints: Map<string, MCheckpoint>;
  turns: MTurn[];
  /** Distinct turn ids of the messages (copied ones included): the `counts.turns` a view shows. */
  turnCount: number;
  /** The last recorded failure, while no turn was committed after it. */
  pendingFailure: MFailure | null;
  forkedFrom: { conversationId: string; messageId: string } | null;
  forks: { conversationId: string; messageId: string }[];
  /** The last resume's cut. */
  cutAt: string | null;
  /** CompactionApplied events so far. */
  compactions: number;
}

export interface Model {
  convs: Map<string, MConv>;
  /** Conversation ids in creation order (commands pick by index). */
  order: string[];
  /** A per-run counter for unique texts, tool ids and turn ids. */
  counter: number;
  restarts: number;
}

export const newModel = (): Model => ({ convs: new Map(), order: [], counter: 0, restarts: 0 });

export const newConv = (id: string, forkedFrom: MConv['forkedFrom'] = null): MConv => ({
  id,
  nodes: new Map(),
  tip: null,
  checkpoints: new Map(),
  turns: [],
  turnCount: 0,
  pendingFailure: null,
  forkedFrom,
  forks: [],
  cutAt: null,
  compactions: 0,
});

export const addConv = (m: Model, c: MConv): void => {
  m.convs.set(c.id, c);
  m.order.push(c.id);
};

export const fresh = (m: Model, prefix: string): string => `${prefix}${++m.counter}`;

/** Picks element `i` modulo the length (commands carry indices generated before the model). */
export const pick = <T>(items: readonly T[], i: number): T => items[i % items.length];

export const convAt = (m: Model, i: number): MConv => {
  const id = pick(m.order, i);
  const c = m.convs.get(id);
  if (!c) throw new Error(`model: no conversation ${id}`);
  return c;
};

export const nodeIds = (c: MConv): string[] => [...c.nodes.keys()];

/** Where a new turn may hang: the end of a turn. */
export const boundaries = (c: MConv): string[] =>
  [...c.nodes.values()].filter((n) => n.boundary).map((n) => n.id);

export const midTurn = (c: MConv): string[] =>
  [...c.nodes.values()].filter((n) => !n.boundary).map((n) => n.id);

/** root → id. */
export const pathTo = (c: MConv, id: string | null): string[] => {
  const out: string[] = [];
  for (let cur = id; cur !== null;) {
    const n = c.nodes.get(cur);
    if (!n) throw new Error(`model: unknown message ${cur}`);
    out.push(cur);
    cur = n.parentId;
  }
  return out.reverse();
};

export const childrenOf = (c: MConv, id: string): string[] =>
  [...c.nodes.values()].filter((n) => n.parentId === id).map((n) => n.id);

export const isLive = (cp: MCheckpoint): boolean => cp.status !== 'dropped';

export const sortedCheckpoints = (c: MConv): MCheckpoint[] =>
  [...c.checkpoints.values()].sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));

/** The checkpoint as GET .../checkpoints shows it. */
export const checkpointView = (cp: MCheckpoint): Record<string, unknown> => ({
  label: cp.label,
  messageId: cp.messageId,
  status: cp.status,
  ...(cp.reason !== undefined ? { reason: cp.reason } : {}),
  ...(cp.digest !== undefined ? { digest: cp.digest } : {}),
});

// ---- turns ---------------------------------------------------------------------------------

export interface TurnShape {
  /** Tool rounds before the final answer (0: a plain exchange). */
  rounds: number;
  /** Tool calls per round. */
  calls: number;
  /** Long tool outputs (~800 tokens) and a long answer (~2,800): gives the ladder work. */
  long: boolean;
}

const prose = (n: number, what: string, times: number) =>
  `${what} ${n}: the review went through the event log, the projections and the ladder. `.repeat(
    times,
  );

/** The messages of one turn, with texts and tool ids unique in the run. */
export const turnMessages = (m: Model, shape: TurnShape): MMessage[] => {
  const n = ++m.counter;
  const out: MMessage[] = [{ role: 'user', content: [{ type: 'text', text: `prompt ${n}` }] }];
  for (let r = 0; r < shape.rounds; r++) {
    const ids = Array.from({ length: shape.calls }, (_, i) => `tu_${n}_${r}_${i}`);
    out.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `round ${r} of ${n}` },
        ...ids.map((id) => ({ type: 'tool_use' as const, id, name: 'run', input: { n, r } })),
      ],
    });
    out.push({
      role: 'user',
      content: ids.map((id) => ({
        type: 'tool_result' as const,
        tool_use_id: id,
        content: shape.long ? prose(n, `output of ${id}`, 40) : `output of ${id}`,
      })),
    });
  }
  const answer = shape.long ? prose(n, 'answer', 140) : `answer ${n}`;
  out.push({ role: 'assistant', content: [{ type: 'text', text: answer }] });
  return out;
};

export const nodeOf = (
  msg: MMessage,
  id: string,
  parentId: string | null,
  turnId: string,
): MNode => {
  const hasToolUse = msg.content.some((b) => b.type === 'tool_use');
  return {
    id,
    parentId,
    role: msg.role,
    content: msg.content,
    turnId,
    boundary: msg.role === 'assistant' && !hasToolUse,
    hasToolUse,
    hasToolResult: msg.content.some((b) => b.type === 'tool_result'),
  };
};

/** Records a committed turn (ids as the server gave them). */
export const applyTurn = (c: MConv, turn: MTurn): void => {
  let parent = turn.parentId;
  turn.messages.forEach((msg, i) => {
    const id = turn.messageIds[i];
    c.nodes.set(id, nodeOf(msg, id, parent, turn.turnId));
    parent = id;
  });
  c.turns.push(turn);
  c.turnCount += 1;
  c.tip = turn.tip;
  c.pendingFailure = null;
};

// ---- resume --------------------------------------------------------------------------------

/** SPEC: the window starts at a clean turn start (the root, or a prompt after a final answer). */
export const resumeCut = (
  c: MConv,
  keepMessages: number,
): { cutAt: string; kept: string[]; dropped: string[] } | null => {
  const path = pathTo(c, c.tip).map((id) => c.nodes.get(id) as MNode);
  if (path.length === 0) return null;
  const isStart = (i: number) =>
    i === 0 || (path[i].role === 'user' && !path[i].hasToolResult && !path[i - 1].hasToolUse);
  let start = Math.min(Math.max(0, path.length - keepMessages), path.length - 1);
  while (!isStart(start)) start -= 1;
  const kept = path.slice(start).map((n) => n.id);
  const keptSet = new Set(kept);
  const dropped = sortedCheckpoints(c)
    .filter((cp) => isLive(cp) && !keptSet.has(cp.messageId))
    .map((cp) => cp.label);
  return { cutAt: kept[0], kept, dropped };
};

// ---- fork ----------------------------------------------------------------------------------

/** The fork of `src` at `end`, with the server's id map: the path copied, live checkpoints on it
 * remapped (as active), the tip at the copy of `end`. */
export const forkConv = (
  src: MConv,
  forkId: string,
  end: string,
  idMap: Record<string, string>,
): MConv => {
  const f = newConv(forkId, { conversationId: src.id, messageId: end });
  const path = pathTo(src, end);
  for (const id of path) {
    const n = src.nodes.get(id) as MNode;
    const copy: MNode = {
      ...n,
      id: idMap[id],
      parentId: n.parentId === null ? null : idMap[n.parentId],
    };
    f.nodes.set(copy.id, copy);
  }
  f.turnCount = new Set(path.map((id) => (src.nodes.get(id) as MNode).turnId)).size;
  const onPath = new Set(path);
  for (const cp of sortedCheckpoints(src)) {
    if (isLive(cp) && onPath.has(cp.messageId)) {
      f.checkpoints.set(cp.label, {
        label: cp.label,
        messageId: idMap[cp.messageId],
        status: 'active',
      });
    }
  }
  f.tip = idMap[end];
  return f;
};
