/** Path functions take a `parentOf` lookup so the read side can use them over its own models. */
import { type IdMap } from './events';
import { type Message } from './messages';
import { type ConversationState, getNode } from './state';

export type ParentOf = (id: string) => string | null | undefined;

/** `[id, parent, ..., root]`, or null when unknown or looping. Iterative: no depth limit. */
export const pathToRoot = (id: string, parentOf: ParentOf): string[] | null => {
  const path: string[] = [];
  const seen = new Set<string>();
  let current: string | null = id;
  while (current !== null) {
    if (seen.has(current)) return null;
    seen.add(current);
    const parent = parentOf(current);
    if (parent === undefined) return null;
    path.push(current);
    current = parent;
  }
  return path;
};

export const pathFromRoot = (id: string, parentOf: ParentOf): string[] | null =>
  pathToRoot(id, parentOf)?.reverse() ?? null;

export const stateParentOf =
  (state: ConversationState): ParentOf =>
  (id) =>
    getNode(state, id)?.parentId;

export const branchPath = (state: ConversationState, id: string): string[] | null =>
  pathFromRoot(id, stateParentOf(state));

export const activeBranch = (state: ConversationState): string[] =>
  state.tip === null ? [] : (branchPath(state, state.tip) ?? []);

export interface TreeLink {
  readonly id: string;
  readonly parentId: string | null;
}

export const childrenIndex = (links: Iterable<TreeLink>): Map<string | null, string[]> => {
  const index = new Map<string | null, string[]>();
  for (const { id, parentId } of links) {
    const list = index.get(parentId);
    if (list === undefined) index.set(parentId, [id]);
    else list.push(id);
  }
  return index;
};

export const branchPoints = (links: Iterable<TreeLink>): string[] => {
  const points: string[] = [];
  for (const [parent, children] of childrenIndex(links)) {
    if (parent !== null && children.length > 1) points.push(parent);
  }
  return points;
};

export interface ForkCopy {
  readonly messages: readonly Message[];
  readonly idMap: IdMap;
}

/** Parents remapped, everything else kept, so the copy has the same shape and bytes. */
export const forkCopy = (
  path: readonly Message[],
  newId: (original: Message) => string,
): ForkCopy => {
  const map = new Map<string, string>();
  const messages = path.map((m) => {
    const id = newId(m);
    map.set(m.id, id);
    const parentId = m.parentId === null ? null : (map.get(m.parentId) ?? null);
    return { ...m, id, parentId };
  });
  return { messages, idMap: Object.fromEntries(map) };
};
