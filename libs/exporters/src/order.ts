/** The active branch goes last: both tools resume at the file's last entry. */
import { type Message } from '@arbor/domain';
import { type ExportNote } from './types';

export interface Ordered {
  messages: Message[];
  activeBranch: string[];
  notes: ExportNote[];
}

export const orderTree = (all: readonly Message[], tip: string | null): Ordered => {
  const byId = new Map(all.map((m) => [m.id, m]));
  const notes: ExportNote[] = [];
  const children = new Map<string | null, Message[]>();
  for (const m of all) {
    let parent = m.parentId;
    if (parent !== null && !byId.has(parent)) {
      notes.push({
        messageId: m.id,
        reason: 'parent not in the export: written as a root',
        detail: parent,
      });
      parent = null;
    }
    const list = children.get(parent);
    if (list) list.push(m);
    else children.set(parent, [m]);
  }
  const activeBranch: string[] = [];
  for (let id = tip; id !== null; id = byId.get(id)?.parentId ?? null) {
    if (!byId.has(id)) break;
    activeBranch.unshift(id);
    if (activeBranch.length > all.length) break;
  }
  const onActive = new Set(activeBranch);
  const out: Message[] = [];
  const stack: Message[] = [...(children.get(null) ?? [])].sort(
    (a, b) => Number(onActive.has(b.id)) - Number(onActive.has(a.id)),
  );
  const seen = new Set<string>();
  while (stack.length > 0) {
    const m = stack.pop() as Message;
    if (seen.has(m.id)) continue;
    seen.add(m.id);
    out.push(m);
    // popped last = pushed first: the active child is pushed first, so it is visited last.
    const kids = [...(children.get(m.id) ?? [])].sort(
      (a, b) =>
        Number(onActive.has(b.id)) - Number(onActive.has(a.id)) ||
        b.createdAt.localeCompare(a.createdAt),
    );
    stack.push(...kids);
  }
  const messages = [
    ...out.filter((m) => !onActive.has(m.id)),
    ...activeBranch.map((id) => byId.get(id) as Message),
  ];
  return { messages, activeBranch, notes };
};
