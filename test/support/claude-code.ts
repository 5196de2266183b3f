/**
 * A small converter from a Claude Code session file (`~/.claude/projects/.../<session>.jsonl`) to
 * Arbor turns, for the import e2e test. Not a full importer: it keeps what maps onto the message
 * model and reports everything it leaves out.
 *
 * - Records form a tree by `uuid`/`parentUuid`. Records without uuid are skipped; records that are
 *   not user/assistant messages (system, progress, attachment, summary...) are transparent: their
 *   children hang on their parent.
 * - One API message is written as several assistant lines sharing `message.id`: merged into one.
 *   The tool results answering one assistant message (one line per result, chained or each under
 *   the line of its call) are merged into one user message, tool_result blocks first.
 * - Thinking without a signature, empty text, unknown blocks and tool_use/tool_result pairs the
 *   file broke (a call without its result, a result without its call) are dropped and reported; a
 *   message left empty becomes transparent. Unknown blocks inside a tool result become text.
 * - A turn is the path from a user prompt (consecutive prompt records merged into one message)
 *   through the tool loop to an assistant message without tool_use, hung on the previous turn's
 *   final answer. A path of another shape is skipped, with its descendants, and reported.
 * - The expected active branch ends at the last committed turn on the path of the file's last
 *   record.
 */
import { type MessageIn } from './api';

type Json = Record<string, unknown>;
type Block = Json & { type: string };

interface RawRecord {
  type?: unknown;
  uuid?: unknown;
  parentUuid?: unknown;
  message?: { id?: unknown; role?: unknown; content?: unknown; model?: unknown; usage?: unknown };
}

interface Node {
  key: string;
  /** Message id used in Arbor: the uuid of the node's first record. */
  id: string;
  role: 'user' | 'assistant';
  kind: 'assistant' | 'results' | 'prompt';
  /** Records merged into this node, in file order (line numbers). */
  lines: number[];
  blocks: Block[];
  parentKey: string | null;
  model?: string;
  usage?: Json;
}

export interface ConvertedTurn {
  parentId: string | null;
  messages: MessageIn[];
  /** Line numbers of the message records this turn carries. */
  lines: number[];
}

export interface Conversion {
  /** Turns in commit order: every turn after the turn it hangs on. */
  turns: ConvertedTurn[];
  /** The tip the file's last record is on (the end of a committed turn), or null. */
  expectedTip: string | null;
  /** root → expectedTip. */
  activeBranch: string[];
  /** Every committed message id → its parent id. */
  parents: Map<string, string | null>;
  /** Message ids with two or more children among the committed messages. */
  branchPoints: string[];
  stats: {
    lines: number;
    messageRecords: number;
    /** Message records that ended up in a committed message. */
    coveredRecords: number;
    messages: number;
    /** Why records, blocks or turns were left out, with counts. */
    skipped: Record<string, number>;
  };
}

const count = (m: Record<string, number>, reason: string, n = 1): void => {
  if (n > 0) m[reason] = (m[reason] ?? 0) + n;
};

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const USAGE_KEYS = [
  'input_tokens',
  'output_tokens',
  'cache_read_input_tokens',
  'cache_creation_input_tokens',
];

const usageOf = (v: unknown): Json | undefined => {
  if (typeof v !== 'object' || v === null) return undefined;
  const u = v as Json;
  const out: Json = {};
  for (const k of USAGE_KEYS) if (typeof u[k] === 'number') out[k] = u[k];
  return Object.keys(out).length ? out : undefined;
};

/** The blocks of a tool_result's content, limited to text and images. */
const toolResultContent = (content: unknown, skipped: Record<string, number>): unknown => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return JSON.stringify(content ?? null);
  const out: Block[] = [];
  for (const raw of content as Block[]) {
    if (raw.type === 'text' && typeof raw.text === 'string') {
      if (raw.text !== '') out.push({ type: 'text', text: raw.text });
      else count(skipped, 'empty text in a tool result');
    } else if (raw.type === 'image') out.push({ type: 'image', source: raw.source as Json });
    else {
      count(skipped, `tool result ${String(raw.type)} block kept as text`);
      out.push({ type: 'text', text: JSON.stringify(raw) });
    }
  }
  return out;
};

/** A record's content as neutral blocks; what cannot be kept is counted in `skipped`. */
const blocksOf = (content: unknown, skipped: Record<string, number>): Block[] => {
  if (typeof content === 'string') {
    if (content === '') count(skipped, 'empty text');
    return content === '' ? [] : [{ type: 'text', text: content }];
  }
  if (!Array.isArray(content)) return [];
  const out: Block[] = [];
  for (const b of content as Block[]) {
    switch (b.type) {
      case 'text':
        if (typeof b.text === 'string' && b.text !== '') out.push({ type: 'text', text: b.text });
        else count(skipped, 'empty text');
        break;
      case 'thinking':
        if (typeof b.signature === 'string' && b.signature !== '')
          out.push({ type: 'thinking', thinking: b.thinking, signature: b.signature });
        else count(skipped, 'thinking without signature');
        break;
      case 'redacted_thinking':
        out.push({ type: 'redacted_thinking', data: b.data });
        break;
      case 'tool_use':
        out.push({ type: 'tool_use', id: b.id, name: b.name, input: b.input ?? {} });
        break;
      case 'tool_result':
        out.push({
          type: 'tool_result',
          tool_use_id: b.tool_use_id,
          content: toolResultContent(b.content, skipped),
          ...(typeof b.is_error === 'boolean' ? { is_error: b.is_error } : {}),
        });
        break;
      case 'image':
        out.push({ type: 'image', source: b.source as Json });
        break;
      default:
        count(skipped, `${String(b.type)} block`);
    }
  }
  return out;
};

const toolUseIds = (blocks: readonly Block[]): string[] =>
  blocks.filter((b) => b.type === 'tool_use').map((b) => b.id as string);
const toolResultIds = (blocks: readonly Block[]): string[] =>
  blocks.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id as string);

const isMessageRecord = (r: RawRecord): boolean =>
  (r.type === 'user' || r.type === 'assistant') &&
  typeof r.message === 'object' &&
  r.message !== null &&
  (r.message.role === 'user' || r.message.role === 'assistant');

/** Reads the records and merges them into nodes (merged messages) keyed by their identity. */
const buildNodes = (text: string, skipped: Record<string, number>) => {
  const records: (RawRecord | null)[] = text.split('\n').map((line) => {
    if (line.trim() === '') return null;
    try {
      return JSON.parse(line) as RawRecord;
    } catch {
      count(skipped, 'unparseable line');
      return null;
    }
  });
  const byUuid = new Map<string, number>();
  records.forEach((r, i) => {
    if (r === null) return;
    const uuid = str(r.uuid);
    if (uuid === undefined) count(skipped, `${String(r.type)} record without uuid`);
    else byUuid.set(uuid, i);
  });

  const contentOf = new Map<number, Block[]>();
  const blocks = (i: number): Block[] => {
    let b = contentOf.get(i);
    if (b === undefined) {
      b = blocksOf((records[i] as RawRecord).message?.content, skipped);
      contentOf.set(i, b);
    }
    return b;
  };

  const keyOfLine = new Map<number, string | null>();
  const nodes = new Map<string, Node>();
  const parentLine = (i: number): number | null => {
    const p = str((records[i] as RawRecord).parentUuid);
    return p === undefined ? null : (byUuid.get(p) ?? null);
  };
  /** The node a record belongs to (null: the root side), resolving transparent records. */
  const keyOf = (start: number): string | null => {
    const chain: number[] = [];
    let i: number | null = start;
    let key: string | null = null;
    while (i !== null) {
      const known = keyOfLine.get(i);
      if (known !== undefined) {
        key = known;
        break;
      }
      chain.push(i);
      const r = records[i] as RawRecord;
      if (isMessageRecord(r)) {
        key = ownKey(i);
        break;
      }
      i = parentLine(i);
    }
    for (const j of chain) if (!keyOfLine.has(j)) keyOfLine.set(j, key);
    return key;
  };
  const ownKey = (i: number): string => {
    const r = records[i] as RawRecord;
    const uuid = r.uuid as string;
    if (r.type === 'assistant') return `a:${str(r.message?.id) ?? uuid}`;
    if (toolResultIds(blocks(i)).length > 0) {
      const p = parentLine(i);
      const parent = p === null ? null : keyOf(p);
      if (parent?.startsWith('a:')) return `r:${parent}`;
      if (parent?.startsWith('r:')) return parent;
    }
    return `u:${uuid}`;
  };

  let messageRecords = 0;
  /** Nodes whose parent is known: one of their records comes from outside them. */
  const placed = new Set<string>();
  records.forEach((r, i) => {
    if (r === null || str(r.uuid) === undefined || !isMessageRecord(r)) return;
    messageRecords++;
    const key = keyOf(i) as string;
    const p = parentLine(i);
    const parentKey = p === null ? null : keyOf(p);
    let node = nodes.get(key);
    if (node === undefined) {
      const kind = key.startsWith('a:') ? 'assistant' : key.startsWith('r:') ? 'results' : 'prompt';
      node = {
        key,
        id: r.uuid as string,
        role: kind === 'assistant' ? 'assistant' : 'user',
        kind,
        lines: [],
        blocks: [],
        parentKey: null,
        ...(kind === 'assistant' && str(r.message?.model) ? { model: str(r.message?.model) } : {}),
        ...(kind === 'assistant' && usageOf(r.message?.usage)
          ? { usage: usageOf(r.message?.usage) }
          : {}),
      };
      nodes.set(key, node);
    }
    // The node hangs where its first record (in file order) that comes from outside it hangs.
    if (!placed.has(key) && parentKey !== key) {
      node.parentKey = parentKey;
      placed.add(key);
    }
    node.lines.push(i);
    node.blocks.push(...blocks(i));
  });
  for (const n of nodes.values()) {
    if (n.kind === 'results') {
      // tool_result blocks first, as providers require.
      n.blocks = [
        ...n.blocks.filter((b) => b.type === 'tool_result'),
        ...n.blocks.filter((b) => b.type !== 'tool_result'),
      ];
    }
  }
  const lastRecord = [...records.keys()].reverse().find((i) => str(records[i]?.uuid) !== undefined);
  return {
    nodes,
    messageRecords,
    lines: records.length,
    lastKey: lastRecord === undefined ? null : keyOf(lastRecord),
  };
};

/** Drops the tool calls and results the file left unpaired. */
const dropBrokenPairs = (nodes: Map<string, Node>, skipped: Record<string, number>): void => {
  for (const n of nodes.values()) {
    if (n.kind === 'assistant') {
      const results = nodes.get(`r:${n.key}`);
      const answered = new Set(results ? toolResultIds(results.blocks) : []);
      const before = n.blocks.length;
      n.blocks = n.blocks.filter((b) => b.type !== 'tool_use' || answered.has(b.id as string));
      count(skipped, 'tool_use without its tool_result', before - n.blocks.length);
    }
  }
  for (const n of nodes.values()) {
    const calls =
      n.kind === 'results' && n.parentKey !== null
        ? new Set(toolUseIds(nodes.get(n.parentKey)?.blocks ?? []))
        : new Set<string>();
    const seen = new Set<string>();
    const before = n.blocks.length;
    n.blocks = n.blocks.filter((b) => {
      if (b.type !== 'tool_result') return true;
      const id = b.tool_use_id as string;
      const keep = calls.has(id) && !seen.has(id);
      seen.add(id);
      return keep;
    });
    count(skipped, 'tool_result without its tool_use', before - n.blocks.length);
  }
};

const isFinal = (n: Node): boolean =>
  n.kind === 'assistant' && n.blocks.length > 0 && toolUseIds(n.blocks).length === 0;

/** The id given to the prompt put in front of a root turn that starts with the assistant. */
export const SYNTHETIC_PROMPT_ID = 'synthetic-prompt';

const synthetic: Node = {
  key: 'synthetic',
  id: SYNTHETIC_PROMPT_ID,
  role: 'user',
  kind: 'prompt',
  lines: [],
  blocks: [{ type: 'text', text: '(the prompt of this transcript is not in the file)' }],
  parentKey: null,
};

interface BuiltTurn {
  /** One entry per Arbor message: the nodes merged into it (consecutive user records merge). */
  groups: Node[][];
  parent: Node | null;
}

/** The turn ending at `final`: its messages back to the previous final answer, or a reason. */
const turnOf = (
  final: Node,
  effectiveParent: (n: Node) => Node | null,
  skipped: Record<string, number>,
): BuiltTurn | { reason: string } => {
  const path: Node[] = [final];
  let parent = effectiveParent(final);
  while (parent !== null && !isFinal(parent)) {
    path.unshift(parent);
    parent = effectiveParent(parent);
  }
  if (path[0].role === 'assistant' && parent === null) {
    count(skipped, 'synthetic prompt added before a transcript that starts with the assistant');
    path.unshift(synthetic);
  }
  // What a provider receives: consecutive user records (a tool result, the interruption notice,
  // the next prompt) are one user message.
  const groups: Node[][] = [];
  for (const n of path) {
    const last = groups[groups.length - 1];
    if (last && last[0].role === n.role) last.push(n);
    else groups.push([n]);
  }
  if (groups[0][0].role !== 'user') return { reason: 'it does not start with a user prompt' };
  for (let i = 1; i < groups.length; i += 2) {
    if (groups[i].length > 1) return { reason: 'two assistant messages in a row' };
    if (i === groups.length - 1) break;
    const calls = toolUseIds(groups[i][0].blocks).sort().join();
    const results = groups[i + 1]
      .flatMap((n) => toolResultIds(n.blocks))
      .sort()
      .join();
    if (calls === '' || calls !== results) return { reason: 'tool calls and results do not pair' };
  }
  return { groups, parent };
};

const merged = (group: Node[]): Node => {
  const blocks = group.flatMap((n) => n.blocks);
  return {
    ...group[0],
    blocks: [
      ...blocks.filter((b) => b.type === 'tool_result'),
      ...blocks.filter((b) => b.type !== 'tool_result'),
    ],
    lines: group.flatMap((n) => n.lines),
  };
};

const toMessage = (n: Node, id: string): MessageIn => ({
  id,
  role: n.role,
  content: n.blocks,
  ...(n.model ? { model: n.model } : {}),
  ...(n.usage ? { usage: n.usage } : {}),
});

export const convertClaudeCode = (text: string): Conversion => {
  const skipped: Record<string, number> = {};
  const { nodes, messageRecords, lines, lastKey } = buildNodes(text, skipped);
  dropBrokenPairs(nodes, skipped);
  const empty = (n: Node) => n.blocks.length === 0;
  for (const n of nodes.values()) if (empty(n)) count(skipped, `${n.kind} left empty`);
  const effectiveParent = (n: Node): Node | null => {
    let k = n.parentKey;
    for (;;) {
      const p = k === null ? undefined : nodes.get(k);
      if (p === undefined) return null;
      if (!empty(p)) return p;
      k = p.parentKey;
    }
  };

  // One turn per final answer, hung on the previous final answer.
  const finals = [...nodes.values()].filter(isFinal);
  const built = new Map<string, BuiltTurn>();
  for (const f of finals) {
    const t = turnOf(f, effectiveParent, skipped);
    if ('reason' in t) count(skipped, `turn skipped: ${t.reason}`);
    else built.set(f.key, t);
  }
  const childTurns = new Map<string | null, string[]>();
  for (const [k, t] of built) {
    const pk = t.parent?.key ?? null;
    childTurns.set(pk, [...(childTurns.get(pk) ?? []), k]);
  }

  // Where the file's last record is: walk up to the nearest final answer of a built turn.
  let activeKey: string | null = null;
  for (let n = lastKey === null ? undefined : nodes.get(lastKey); n;) {
    if (built.has(n.key)) {
      activeKey = n.key;
      break;
    }
    n = n.parentKey === null ? undefined : nodes.get(n.parentKey);
  }
  const activePath = new Set<string>();
  for (let k: string | null = activeKey; k !== null; k = built.get(k)?.parent?.key ?? null)
    activePath.add(k);

  // Depth-first from the root turn, the active child last, so the last commit is on the active
  // path whenever it can be. Arbor has one root: a second root turn is left out.
  const turns: ConvertedTurn[] = [];
  const parents = new Map<string, string | null>();
  const used = new Set<string>();
  const committed = new Set<string>();
  const covered = new Set<number>();
  const fresh = (n: Node): string => {
    // A message shared with an earlier turn (a split inside a turn) is copied under a new id.
    let id = n.id;
    for (let i = 2; used.has(id); i++) id = `${n.id}-${i}`;
    used.add(id);
    return id;
  };
  const activeLast = (keys: string[]) =>
    [...keys].sort((a, b) => Number(activePath.has(a)) - Number(activePath.has(b)));
  const stack = (childTurns.get(null) ?? []).slice(0, 1);
  while (stack.length) {
    const key = stack.pop() as string;
    const t = built.get(key) as BuiltTurn;
    const nodesOfTurn = t.groups.map(merged);
    const ids = nodesOfTurn.map(fresh);
    const parentId = t.parent === null ? null : t.parent.id;
    ids.forEach((id, i) => parents.set(id, i === 0 ? parentId : ids[i - 1]));
    const turnLines = nodesOfTurn.flatMap((n) => n.lines);
    for (const l of turnLines) covered.add(l);
    turns.push({
      parentId,
      messages: nodesOfTurn.map((n, i) => toMessage(n, ids[i])),
      lines: turnLines,
    });
    committed.add(key);
    stack.push(...activeLast(childTurns.get(key) ?? []).reverse());
  }
  const unreachable = [...built.keys()].filter((k) => !committed.has(k)).length;
  if (unreachable > 0) count(skipped, 'turn skipped: not under the root turn', unreachable);

  count(skipped, 'message records in no committed turn', messageRecords - covered.size);
  const children = new Map<string, number>();
  for (const p of parents.values()) if (p !== null) children.set(p, (children.get(p) ?? 0) + 1);
  const activeBranch: string[] = [];
  const expectedTip =
    activeKey !== null && committed.has(activeKey) ? (nodes.get(activeKey) as Node).id : null;
  for (let id: string | null = expectedTip; id !== null; id = parents.get(id) ?? null)
    activeBranch.unshift(id);
  return {
    turns,
    expectedTip,
    activeBranch,
    parents,
    branchPoints: [...children].filter(([, n]) => n > 1).map(([id]) => id),
    stats: { lines, messageRecords, coveredRecords: covered.size, messages: parents.size, skipped },
  };
};
