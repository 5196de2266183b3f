/** A small tree to render (tests only). */
import { type Block, type Message } from '@arbor/domain';
import { type ConversationInfo, type TreeView } from '../client/types';

export const msg = (
  id: string,
  parentId: string | null,
  role: Message['role'],
  content: Block[],
): Message => ({
  id,
  parentId,
  role,
  content,
  turnId: 't',
  createdAt: '2025-01-01T00:00:00.000Z',
});

const text = (t: string): Block => ({ type: 'text', text: t });

/**
 * u1 → a1 (branch point) → [u2 → a2 (side branch, label "old: dropped")] and
 * [u3 → a3 → u4 … a20 (a long run) → tip a20 labelled "done"].
 */
export const sample = (): {
  conversation: ConversationInfo;
  tree: TreeView;
  messages: Message[];
} => {
  const messages: Message[] = [
    msg('u1', null, 'user', [text('first <question>')]),
    msg('a1', 'u1', 'assistant', [
      text('answer'),
      { type: 'tool_use', id: 'x', name: 'Bash', input: {} },
    ]),
    msg('u2', 'a1', 'user', [text('side prompt')]),
    msg('a2', 'u2', 'assistant', [text('side answer')]),
    msg('u3', 'a1', 'user', [
      { type: 'tool_result', tool_use_id: 'x', content: 'ok' },
      text('go on'),
    ]),
  ];
  let parent = 'u3';
  for (let i = 3; i <= 20; i++) {
    const id = i % 2 === 1 ? `a${i}` : `u${i}`;
    messages.push(msg(id, parent, i % 2 === 1 ? 'assistant' : 'user', [text(`step ${i}`)]));
    parent = id;
  }
  const children = new Map<string, string[]>();
  for (const m of messages)
    if (m.parentId !== null) children.set(m.parentId, [...(children.get(m.parentId) ?? []), m.id]);
  const nodes = messages.map((m) => ({
    id: m.id,
    parentId: m.parentId,
    role: m.role,
    children: children.get(m.id) ?? [],
  }));
  return {
    conversation: {
      id: 'conv-1',
      title: 'A <b>title</b>',
      tip: parent,
      revision: 42,
      lineage: { forkedFrom: null, forks: [] },
      counts: { messages: messages.length, turns: 11 },
      metadata: null,
      cutAt: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    },
    tree: {
      tip: parent,
      nodes,
      branchPoints: ['a1'],
      checkpoints: [
        { label: 'old', messageId: 'a2', status: 'dropped', reason: 'trimmed' },
        { label: 'done', messageId: parent, status: 'active' },
      ],
    },
    messages,
  };
};
