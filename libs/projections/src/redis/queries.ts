import { type Message } from '@arbor/domain';
import {
  type ConversationListKey,
  listKeyOf,
  prefixEnd,
  type ForkRow,
  type TreeNode,
} from '../conversations/queries';
import { type ReadModelQueries } from '../read-model-port';
import { type RedisClient } from './connection';
import {
  byLabel,
  loadConversation,
  loadFailure,
  type MessageMeta,
  readModelKeys,
  type StoredCheckpoint,
  type StoredConversation,
  type StoredFailure,
  toRow,
} from './keys';

export const createRedisQueries = (options: {
  client: RedisClient;
  prefix: string;
  generation: string;
}): ReadModelQueries => {
  const { client, prefix, generation } = options;
  const keys = readModelKeys(prefix, generation);
  const { conv } = keys;
  const listKey = keys.list;
  const sortedKey = keys.sorted;
  const getConv = (t: string, c: string) => loadConversation(client, conv(t, c));

  const digestsOf = async (k: string) => {
    const all = await client.hGetAll(`${k}:digests`);
    const byMessage = new Map<string, { label: string; digest: string; revision: number }[]>();
    for (const rev of Object.keys(all).sort((a, b) => Number(a) - Number(b))) {
      const d = JSON.parse(all[rev]) as { messageId: string; label: string; digest: string };
      const list = byMessage.get(d.messageId) ?? [];
      list.push({ label: d.label, digest: d.digest, revision: Number(rev) });
      byMessage.set(d.messageId, list);
    }
    return byMessage;
  };

  const bodiesOf = async (k: string, ids: string[]): Promise<Message[]> => {
    if (ids.length === 0) return [];
    const raws = await client.hmGet(`${k}:bodies`, ids);
    return raws.map((r, i) => {
      if (r === null) throw new Error(`read model: body of ${ids[i]} is missing`);
      return JSON.parse(r) as Message;
    });
  };

  /** Messages by id, with the digests kept at each rewind to them (as the SQLite queries). */
  const branchItems = async (k: string, ids: string[]): Promise<Message[]> => {
    const messages = await bodiesOf(k, ids);
    const digests = (await client.hLen(`${k}:digests`)) > 0 ? await digestsOf(k) : null;
    return messages.map((m) => {
      const d = digests?.get(m.id);
      return d === undefined ? m : { ...m, digests: d };
    });
  };

  return {
    getConversation: async (t, c) => {
      const row = await getConv(t, c);
      if (!row) return null;
      const raw = await client.hGetAll(`${conv(t, c)}:forks`);
      const forks: (ForkRow & { position: number })[] = Object.entries(raw).map(([fork, v]) => {
        const f = JSON.parse(v) as { from: string; position: number };
        return { conversationId: fork, messageId: f.from, position: f.position };
      });
      forks.sort((a, b) => a.position - b.position);
      return {
        ...toRow(row),
        forks: forks.map((f) => ({ conversationId: f.conversationId, messageId: f.messageId })),
      };
    },
    listConversations: async (t, afterSeq, limit) => {
      const ids = await client.zRange(listKey(t), `(${afterSeq}`, '+inf', {
        BY: 'SCORE',
        LIMIT: { offset: 0, count: limit + 1 },
      });
      const rows = await Promise.all(ids.map((c) => getConv(t, c)));
      const present = rows.filter((r): r is StoredConversation => r !== null);
      const page = present.slice(0, limit);
      return {
        items: page.map(toRow),
        nextSeq: present.length > limit ? page[page.length - 1].seq : null,
        seqs: page.map((r) => r.seq),
      };
    },
    listConversationsBy: async (t, o) => {
      if (o.titlePrefix !== null && o.sort !== 'title')
        throw new Error('a title prefix needs sort: title');
      const count = o.limit + 1;
      const rev = o.order === 'desc';
      let ids: string[];
      if (o.sort === 'created') {
        const after = o.after === null ? null : `(${o.after.seq}`;
        ids = rev
          ? await client.zRange(listKey(t), after ?? '+inf', '-inf', {
              BY: 'SCORE',
              REV: true,
              LIMIT: { offset: 0, count },
            })
          : await client.zRange(listKey(t), after ?? '-inf', '+inf', {
              BY: 'SCORE',
              LIMIT: { offset: 0, count },
            });
      } else {
        // Lexicographic bounds: `[p` .. `(p U+10FFFF` for a prefix; after an item, just above
        // (`\u0001` sorts above the `\u0000` before every id) or just below its key and seq.
        const at = (k: ConversationListKey, tail: string) =>
          `(${k.key}\u0000${String(k.seq).padStart(16, '0')}${tail}`;
        const p = o.titlePrefix;
        const low = p === null ? '-' : `[${p}`;
        const high = p === null ? '+' : `(${prefixEnd(p)}`;
        const key = sortedKey(t, o.sort);
        const members = rev
          ? await client.zRange(key, o.after === null ? high : at(o.after, '\u0000'), low, {
              BY: 'LEX',
              REV: true,
              LIMIT: { offset: 0, count },
            })
          : await client.zRange(key, o.after === null ? low : at(o.after, '\u0001'), high, {
              BY: 'LEX',
              LIMIT: { offset: 0, count },
            });
        ids = members.map((m) => m.slice(m.lastIndexOf('\u0000') + 1));
      }
      const rows = await Promise.all(ids.slice(0, o.limit).map((c) => getConv(t, c)));
      const page = rows.filter((r): r is StoredConversation => r !== null);
      return {
        items: page.map(toRow),
        keys: page.map((r) => ({ key: listKeyOf(o.sort, r), seq: r.seq })),
        more: ids.length > o.limit,
      };
    },
    activeBranchPage: async (t, c, fromDepth, limit) => {
      const k = conv(t, c);
      const ids = await client.lRange(`${k}:branch`, fromDepth, fromDepth + limit);
      return {
        items: await branchItems(k, ids.slice(0, limit)),
        nextDepth: ids.length > limit ? fromDepth + limit : null,
      };
    },
    activeBranchTail: async (t, c, last) => {
      const k = conv(t, c);
      const ids = last <= 0 ? [] : await client.lRange(`${k}:branch`, -last, -1);
      return { items: await branchItems(k, ids), nextDepth: null };
    },
    depthOf: async (t, c, id) => {
      const raw = await client.hGet(`${conv(t, c)}:msgs`, id);
      return raw === null ? null : (JSON.parse(raw) as MessageMeta).depth;
    },
    getMessage: async (t, c, id) => {
      const raw = await client.hGet(`${conv(t, c)}:bodies`, id);
      return raw === null ? null : (JSON.parse(raw) as Message);
    },
    tree: async (t, c) => {
      const k = conv(t, c);
      const ids = await client.zRange(`${k}:order`, 0, -1);
      if (ids.length === 0) return [];
      const raws = await client.hmGet(`${k}:msgs`, ids);
      const nodes = new Map<string, TreeNode>();
      ids.forEach((id, i) => {
        const m = JSON.parse(raws[i] as string) as MessageMeta;
        nodes.set(id, { id, parentId: m.parentId, role: m.role, children: [] });
      });
      for (const n of nodes.values())
        if (n.parentId !== null) nodes.get(n.parentId)?.children.push(n.id);
      return [...nodes.values()];
    },
    allMessages: async (t, c) => {
      const k = conv(t, c);
      return bodiesOf(k, await client.zRange(`${k}:order`, 0, -1));
    },
    checkpoints: async (t, c) => {
      const all = await client.hGetAll(`${conv(t, c)}:cps`);
      return Object.keys(all)
        .sort(byLabel)
        .map((label) => {
          const cp = JSON.parse(all[label]) as StoredCheckpoint;
          return {
            label,
            messageId: cp.messageId,
            status: cp.status,
            ...(cp.reason !== null ? { reason: cp.reason } : {}),
            ...(cp.digest !== null ? { digest: cp.digest } : {}),
          };
        });
    },
    pendingFailure: async (t, c) => {
      const k = conv(t, c);
      const row = await getConv(t, c);
      if (!row || row.pending.length === 0) return null;
      let best: { id: string; f: StoredFailure } | null = null;
      for (const id of row.pending) {
        const f = await loadFailure(client, k, id);
        if (f && f.pending && (best === null || f.revision > best.f.revision)) best = { id, f };
      }
      return best
        ? { failureId: best.id, input: JSON.parse(best.f.input), error: JSON.parse(best.f.error) }
        : null;
    },
  };
};
