/**
 * A tiny converter from a Claude Code session file (JSONL) to Arbor turns. Tests only.
 *
 * - Records without a uuid, and non-message records (`progress`, `system`, `attachment`, ...) are
 *   transparent: children hang on the nearest message ancestor.
 * - Skipped, and reported: sidechain and `isMeta` records, local-command records
 *   (`<command-name>`, `<local-command-stdout>`, `<local-command-caveat>`), messages that fail
 *   `parseMessages`, and turns that never reach a final answer or branch mid-turn.
 * - Assistant lines of one API message (same `message.id`, chained) become one message; tool_result
 *   lines answering one assistant message (parallel calls, siblings or chained) become one user
 *   message, and a user line following a user line is merged into it.
 */
import { type Block, type MessageInput } from '../messages';
import { parseMessage } from '../validate-message';

interface CcRecord {
  type?: string;
  uuid?: string;
  parentUuid?: string | null;
  isSidechain?: boolean;
  isMeta?: boolean;
  message?: { id?: string; role?: string; content?: unknown };
}

interface Node {
  id: string;
  parent: string | null;
  role: 'user' | 'assistant';
  apiId?: string;
  content: Block[];
  children: string[];
}

export interface ConvertedTurn {
  parentId: string | null;
  messages: MessageInput[];
}

export interface Conversion {
  turns: ConvertedTurn[];
  skipped: Record<string, number>;
  nodes: number;
}

const LOCAL_COMMAND = /^\s*<(command-name|local-command-stdout|local-command-caveat)>/;

const textOf = (content: unknown): string | null =>
  typeof content === 'string'
    ? content
    : Array.isArray(content) && content.length === 1 && content[0]?.type === 'text'
      ? String(content[0].text)
      : null;

const skipReason = (r: CcRecord): string | null => {
  if (r.type !== 'user' && r.type !== 'assistant') return null;
  if (r.isSidechain) return 'sidechain record';
  if (r.isMeta) return 'meta record';
  const text = textOf(r.message?.content);
  if (text !== null && LOCAL_COMMAND.test(text)) return 'local command record';
  return null;
};

const isMessageRecord = (r: CcRecord): boolean =>
  (r.type === 'user' || r.type === 'assistant') &&
  r.message !== undefined &&
  skipReason(r) === null;

const isToolResultOnly = (content: Block[]): boolean =>
  content.length > 0 && content.every((b) => b.type === 'tool_result');

const toBlocks = (content: unknown): unknown[] =>
  typeof content === 'string'
    ? [{ type: 'text', text: content }]
    : Array.isArray(content)
      ? content
      : [];

export const convertClaudeCode = (jsonl: string): Conversion => {
  const skipped: Record<string, number> = {};
  const skip = (why: string, n = 1) => {
    skipped[why] = (skipped[why] ?? 0) + n;
  };
  const records = jsonl
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as CcRecord);
  const byUuid = new Map<string, CcRecord>();
  for (const r of records) {
    if (r.uuid === undefined) skip(`record without uuid (${r.type})`);
    else byUuid.set(r.uuid, r);
  }

  // uuid of a message record → id of the node it belongs to.
  const nodeOfRecord = new Map<string, string>();
  const nodes = new Map<string, Node>();
  const order: string[] = [];
  const nearestNode = (uuid: string | null | undefined): string | null => {
    let current = uuid ?? null;
    while (current !== null) {
      const node = nodeOfRecord.get(current);
      if (node !== undefined) return node;
      current = byUuid.get(current)?.parentUuid ?? null;
    }
    return null;
  };

  // File order is not always parent-first: place a record once its parent is placed.
  const pending = new Set(records.filter((r) => r.uuid !== undefined));
  const placed = new Set<string>();
  let progress = true;
  while (pending.size > 0 && progress) {
    progress = false;
    for (const r of pending) {
      const parentUuid = r.parentUuid ?? null;
      if (parentUuid !== null && byUuid.has(parentUuid) && !placed.has(parentUuid)) continue;
      pending.delete(r);
      placed.add(r.uuid as string);
      progress = true;
      const why = skipReason(r);
      if (why !== null) skip(why);
      if (isMessageRecord(r)) place(r);
    }
  }
  if (pending.size > 0) skip('record in a parent loop', pending.size);

  function place(r: CcRecord): void {
    const uuid = r.uuid as string;
    const parent = nearestNode(r.parentUuid);
    const parentNode = parent === null ? undefined : nodes.get(parent);
    const blocks = toBlocks(r.message?.content) as Block[];
    const role = r.type as 'user' | 'assistant';
    const apiId = r.message?.id;
    const sameApiMessage =
      role === 'assistant' &&
      parentNode?.role === 'assistant' &&
      apiId !== undefined &&
      parentNode.apiId === apiId;
    const siblingResults =
      role === 'user' && isToolResultOnly(blocks) && parentNode?.role === 'assistant'
        ? parentNode.children
            .map((c) => nodes.get(c) as Node)
            .find((c) => c.role === 'user' && isToolResultOnly(c.content))
        : undefined;
    // Consecutive user lines (chained parallel results, a note after an interrupted tool call, a
    // queued prompt) are one user message; tool_results stay before other blocks.
    const userAfterUser =
      role === 'user' &&
      parentNode?.role === 'user' &&
      (isToolResultOnly(blocks) ? isToolResultOnly(parentNode.content) : true);
    const target = sameApiMessage || userAfterUser ? parentNode : siblingResults;
    if (target !== undefined) {
      target.content.push(...blocks);
      nodeOfRecord.set(uuid, target.id);
      return;
    }
    const node: Node = { id: uuid, parent, role, apiId, content: [...blocks], children: [] };
    nodes.set(uuid, node);
    order.push(uuid);
    nodeOfRecord.set(uuid, uuid);
    parentNode?.children.push(uuid);
  }

  // Validate every node; an invalid node cuts its subtree.
  const valid = new Map<string, MessageInput>();
  for (const id of order) {
    const n = nodes.get(id) as Node;
    const parsed = parseMessage({ id: n.id, role: n.role, content: n.content });
    if (parsed.ok) valid.set(id, parsed.value);
    else skip(`message failing validation (${parsed.errors[0].code})`);
  }

  const turns: ConvertedTurn[] = [];
  const isBoundary = (n: Node) =>
    n.role === 'assistant' && !n.content.some((b) => b.type === 'tool_use');
  // Walk from each turn start to its final answer; a turn branching mid-way keeps its first path.
  const walkTurn = (startId: string, parentId: string | null): void => {
    const messages: MessageInput[] = [];
    let current: Node | undefined = nodes.get(startId);
    if (current?.role !== 'user' || current.content.some((b) => b.type === 'tool_result')) {
      return skip('turn not opening with a user prompt');
    }
    while (current !== undefined) {
      const input = valid.get(current.id);
      if (input === undefined) return skip('turn cut by an invalid message');
      messages.push(input);
      if (isBoundary(current)) break;
      if (current.children.length > 1)
        skip('branch inside a turn (kept the first path)', current.children.length - 1);
      current = current.children.length === 0 ? undefined : nodes.get(current.children[0]);
    }
    if (current === undefined) return skip('turn without a final answer');
    if (parentId === null && turns.some((t) => t.parentId === null))
      return skip('second root turn');
    turns.push({ parentId, messages });
    for (const child of current.children) walkTurn(child, current.id);
  };
  for (const id of order) if ((nodes.get(id) as Node).parent === null) walkTurn(id, null);
  return { turns, skipped, nodes: nodes.size };
};
