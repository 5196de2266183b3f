/** Two branches side by side from their common ancestor. */
import { useMemo, useState } from 'preact/hooks';
import { MessageView, preview } from '../blocks';
import { compareBranches, indexTree } from '../tree-model';
import { go, short } from '../ui';
import { type Loaded } from './conversation';

export const CompareView = ({ data, a, b }: { data: Loaded; a?: string; b?: string }) => {
  const { tree, messages, conversation } = data;
  const ix = useMemo(() => indexTree(tree), [tree]);
  const leaves = useMemo(
    () => tree.nodes.filter((n) => n.children.length === 0).map((n) => n.id),
    [tree],
  );
  const left = a && ix.byId.has(a) ? a : (tree.tip ?? leaves[0]);
  const right = b && ix.byId.has(b) ? b : (leaves.find((l) => l !== left) ?? left);
  const [expanded, setExpanded] = useState<string | null>(null);
  if (!left || !right) return <p class="muted">nothing to compare</p>;
  const cmp = compareBranches(ix.byId, left, right);
  const pick = (side: 'a' | 'b') => (e: Event) => {
    const v = (e.target as HTMLSelectElement).value;
    go('c', conversation.id, 'compare', side === 'a' ? v : left, side === 'b' ? v : right);
  };
  const options = [...new Set([left, right, ...leaves])];
  const picker = (side: 'a' | 'b', value: string) => (
    <label>
      {side.toUpperCase()}{' '}
      <select data-testid={`compare-${side}`} value={value} onChange={pick(side)}>
        {options.map((o) => (
          <option key={o} value={o}>
            {short(o, 14)} {o === tree.tip ? '(tip)' : ''} {preview(messages.get(o), 40)}
          </option>
        ))}
      </select>
    </label>
  );
  const column = (ids: string[], testid: string) => (
    <div class="compare-col" data-testid={testid}>
      {ids.map((id) => (
        <div
          key={id}
          class={`row ${ix.active.has(id) ? 'active' : 'side'}`}
          onClick={() => setExpanded(expanded === id ? null : id)}
          data-testid="compare-node"
        >
          <span class={`role role-${ix.byId.get(id)?.role}`}>
            {ix.byId.get(id)?.role[0].toUpperCase()}
          </span>
          <span class="preview">{preview(messages.get(id), 80)}</span>
          {expanded === id && messages.get(id) ? (
            <MessageView message={messages.get(id)!} others={[]} />
          ) : null}
        </div>
      ))}
      {ids.length === 0 ? <p class="muted">(the ancestor itself)</p> : null}
    </div>
  );
  return (
    <div data-testid="compare">
      <div class="toolbar">
        {picker('a', left)}
        {picker('b', right)}
      </div>
      <p data-testid="ancestor">
        common ancestor: <code>{cmp.ancestor ?? 'none (different roots)'}</code>{' '}
        {preview(messages.get(cmp.ancestor ?? ''), 80)} · A has {cmp.left.length} message(s) after
        it, B {cmp.right.length}
      </p>
      <div class="compare">
        {column(cmp.left, 'compare-left')}
        {column(cmp.right, 'compare-right')}
      </div>
    </div>
  );
};
