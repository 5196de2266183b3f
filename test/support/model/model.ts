/**
 * A small, independent model of Arbor's conversation tree, for the model-based e2e test
 * (test/tree-model.e2e-spec.ts). Plain maps and arrays; nothing here imports the app or the
 * domain library (only a PNG encoder for test images), so a bug there cannot hide in the model.
 * Message ids come from the server (the model records what the server returned after checking it
 * is fresh); so do compaction decisions (recorded from the CompactionApplied events, with the
 * message ids they name).
 */
import { makePngBase64 } from '@arbor/context/testing/images';

export type Role = 'user' | 'assistant';

export interface MBlock {
  type: 'text' | 'image' | 'tool_use' | 'tool_result';
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
  /** The tip when it was cut: the cut shapes the live window only while the tip stays there. */
  cutTip: string | null;
  /** Every CompactionApplied of this conversation, in log order (a fork starts with none). */
  decisions: MDecision[];
  lastContext: MLastContext | null;
}

/** A compaction decision as the log recorded it: its id, rung, and the source messages it names. */
export interface MDecision {
  id: string;
  rung: string;
  messageIds: string[];
}

/**
 * The last context answered for a conversation, valid while nothing has been written to it since
 * (checked by its event count): the same request must give the same body again, deciding nothing
 * (decisions persist; pages re-rendered from source), after a restart too — and the same prefix
 * hash when it decided nothing itself (with new decisions the hash covers only the prefix before
 * the first change).
 */
export interface MLastContext {
  request: Record<string, unknown>;
  bodyHash: string;
  prefixHash: string;
  decided: boolean;
  /** Events of the conversation when it was answered (its ContextAssembled included). */
  events: number;
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
  cutTip: null,
  decisions: [],
  lastContext: null,
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
  /**
   * Long tool outputs (3–6 KB of token-dense lines: hex ids, numbers, code-like calls, ~2–3.5k
   * tokens each) and a long answer (~1.7k tokens): gives the ladder work. Repeated prose would
   * tokenize to a fraction of that.
   */
  long: boolean;
  /** PNG images in the turn. */
  images: number;
}

/** A deterministic 32-bit generator (mulberry32), so texts depend on the run's counter only. */
const rng = (seed: number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

/** About `chars` characters of lines a tokenizer cannot compress: ids, numbers, code. */
export const denseText = (seed: number, chars: number, what: string): string => {
  const r = rng(seed);
  const hex = () =>
    Math.floor(r() * 0xffffffff)
      .toString(16)
      .padStart(8, '0');
  const lines = [`${what}:`];
  let n = lines[0].length;
  for (let i = 0; n < chars; i++) {
    const line =
      i % 3 === 0
        ? `  ${hex()} ${hex().slice(0, 5)} rows=${Math.floor(r() * 99_999)} p=${r().toFixed(6)} ${what.length % 7 === 0 ? 'ok' : 'E' + (i % 13)}`
        : i % 3 === 1
          ? `  call(f_${hex().slice(0, 4)}, [${Math.floor(r() * 4096)}, ${Math.floor(r() * 4096)}], "${hex()}");`
          : `  /src/m${Math.floor(r() * 90)}/${hex().slice(2, 7)}.ts:${Math.floor(r() * 999)}:${Math.floor(r() * 80)} ${hex()}`;
    lines.push(line);
    n += line.length + 1;
  }
  return lines.join('\n');
};

const PNG_SIZES = [
  [640, 480],
  [800, 600],
] as const;
const pngs = new Map<number, string>();
/** A valid PNG (a gradient, a few KB) that vision models bill a few hundred tokens for. */
export const pngBlock = (i: number): MBlock => {
  const k = i % PNG_SIZES.length;
  let data = pngs.get(k);
  if (data === undefined) {
    data = makePngBase64(PNG_SIZES[k][0], PNG_SIZES[k][1]);
    pngs.set(k, data);
  }
  return { type: 'image', source: { type: 'base64', media_type: 'image/png', data } };
};

/**
 * The messages of one turn, with texts and tool ids unique in the run. Images go with the prompt
 * (a tool result's images would leave with its elision), the second one of a tool loop inside its
 * first tool result.
 */
export const turnMessages = (m: Model, shape: TurnShape): MMessage[] => {
  const n = ++m.counter;
  const images = Array.from({ length: shape.images }, (_, i) => pngBlock(n + i));
  const nested = shape.rounds > 0 && images.length > 1 ? images.splice(1, 1) : [];
  const out: MMessage[] = [
    { role: 'user', content: [{ type: 'text', text: `prompt ${n}` }, ...images] },
  ];
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
      content: ids.map((id, i) => {
        const output = shape.long
          ? denseText(n * 1000 + r * 10 + i, 3000 + ((n + r + i) % 4) * 1000, `output of ${id}`)
          : `output of ${id}`;
        const own = r === 0 && i === 0 ? nested : [];
        return {
          type: 'tool_result' as const,
          tool_use_id: id,
          content: own.length === 0 ? output : [{ type: 'text', text: output }, ...own],
        };
      }),
    });
  }
  const answer = shape.long ? denseText(n, 3000, `answer ${n}`) : `answer ${n}`;
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

/** The window starts at a clean turn start (the root, or a prompt after a final answer). */
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

/** The live window a context is built from: the active branch, from the cut while the tip has
 * not moved since the resume. */
export const liveWindow = (c: MConv): string[] => {
  const path = pathTo(c, c.tip);
  const at = c.cutAt === null || c.cutTip !== c.tip ? -1 : path.indexOf(c.cutAt);
  return at < 0 ? path : path.slice(at);
};

/** Roughly what a window weighs (characters of text, ~1,000 an image), to pick a big one. */
export const windowWeight = (c: MConv): number => {
  const weigh = (b: MBlock): number =>
    b.type === 'image'
      ? 1000
      : b.type === 'text'
        ? String(b.text).length
        : b.type === 'tool_result'
          ? typeof b.content === 'string'
            ? b.content.length
            : (b.content as MBlock[]).reduce((n, x) => n + weigh(x), 0)
          : 50;
  return liveWindow(c).reduce(
    (n, id) => n + (c.nodes.get(id) as MNode).content.reduce((k, b) => k + weigh(b), 0),
    0,
  );
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

/**
 * invariant 4: the source's decisions naming a message of the copied path. Forks keep the prompt
 * cache, so the fork carries each over, remapped to its own message ids (elisions and strips:
 * the parts on the path; ranges: only when wholly on it), and drops the rest explicitly
 * (ForkedFrom.droppedCompactions: a range reaching beyond the fork point), in log order. The model
 * has no revocation, so every decision is in force.
 */
export const forkCompactions = (
  src: MConv,
  path: readonly string[],
  idMap: Readonly<Record<string, string>>,
): {
  dropped: { id: string; rung: string }[];
  carried: { sourceId: string; rung: string; messageIds: string[] }[];
} => {
  const onPath = new Set(path);
  const dropped: { id: string; rung: string }[] = [];
  const carried: { sourceId: string; rung: string; messageIds: string[] }[] = [];
  for (const d of src.decisions) {
    const inside = d.messageIds.filter((id) => onPath.has(id));
    if (inside.length === 0) continue;
    const range = d.rung !== 'elide' && d.rung !== 'strip_images';
    if (range && inside.length < d.messageIds.length) dropped.push({ id: d.id, rung: d.rung });
    else carried.push({ sourceId: d.id, rung: d.rung, messageIds: inside.map((id) => idMap[id]) });
  }
  return { dropped, carried };
};

/** The source messages a recorded decision names (as the log shows it), by its rung. */
export const decisionOf = (decision: Record<string, unknown>): MDecision => {
  const rung = String(decision.rung);
  const list = (key: string) => (decision[key] as { messageId: string }[]).map((x) => x.messageId);
  const messageIds =
    rung === 'elide'
      ? list('results')
      : rung === 'strip_images'
        ? list('images')
        : [...(decision.coveredIds as string[])];
  return { id: String(decision.id), rung, messageIds };
};
