import {
  type ConversationSort,
  type CheckpointRow,
  type ConversationRow,
  listKeyOf,
} from '../conversations/queries';
import { type RedisClient } from './connection';

// The key layout: libs/projections/README.md ("Redis read models").

/** The control keys' hash tag: one slot for the marker, metas, checkpoints, leases, fences. */
export const controlTag = (prefix: string): string => `{${prefix}:ctl}`;
export const generationKey = (prefix: string): string => `${prefix}:${controlTag(prefix)}:gen`;
export const projectorCheckpointKey = (prefix: string, generation: string, name: string): string =>
  `${prefix}:${generation}:${controlTag(prefix)}:checkpoint:${name}`;

export interface StoredConversation {
  id: string;
  seq: number;
  title: string | null;
  metadata: string | null;
  tip: string | null;
  revision: number;
  position: number;
  createdAt: string;
  updatedAt: string;
  ffc: string | null;
  ffm: string | null;
  messageCount: number;
  turnCount: number;
  cutAt: string | null;
  pending: string[];
}

export interface MessageMeta {
  parentId: string | null;
  role: string;
  depth: number;
  seq: number;
  turnId: string;
}

export interface StoredCheckpoint {
  messageId: string;
  status: CheckpointRow['status'];
  reason: string | null;
  digest: string | null;
  revision: number;
}

export interface StoredFailure {
  input: string;
  error: string;
  revision: number;
  pending: boolean;
}

/** Every key a conversation has besides its `:erased` marker. */
export const ERASED_PARTS = [
  'conv',
  'msgs',
  'bodies',
  'order',
  'branch',
  'cps',
  'failures',
  'digests',
  'forks',
  'forksgone',
  'fence',
];

const member = (key: string, seq: number, id: string) =>
  `${key}\u0000${String(seq).padStart(16, '0')}\u0000${id}`;

export const sortedMembers = (row: StoredConversation) => ({
  activity: member(listKeyOf('lastActivity', row), row.seq, row.id),
  title: member(listKeyOf('title', row), row.seq, row.id),
});

export const readModelKeys = (prefix: string, generation: string) => {
  const base = `${prefix}:${generation}`;
  const conv = (t: string, c: string) => `${base}:{${t}:${c}}`;
  const list = (t: string) => `${base}:{${t}}:list`;
  return {
    base,
    conv,
    list,
    gone: (t: string) => `${base}:{${t}}:gone`,
    forks: (t: string, source: string) => [
      `${conv(t, source)}:forks`,
      `${conv(t, source)}:forksgone`,
      `${conv(t, source)}:erased`,
    ],
    sorted: (t: string, sort: Exclude<ConversationSort, 'created'>) =>
      `${list(t)}:${sort === 'lastActivity' ? 'activity' : 'title'}`,
  };
};
export type ReadModelKeys = ReturnType<typeof readModelKeys>;

export const loadConversation = async (
  client: RedisClient,
  convKey: string,
): Promise<StoredConversation | null> => {
  const raw = await client.get(`${convKey}:conv`);
  return raw === null ? null : (JSON.parse(raw) as StoredConversation);
};

export const loadFailure = async (
  client: RedisClient,
  convKey: string,
  id: string,
): Promise<StoredFailure | null> => {
  const raw = await client.hGet(`${convKey}:failures`, id);
  return raw === null ? null : (JSON.parse(raw) as StoredFailure);
};

export const toRow = (c: StoredConversation): ConversationRow => ({
  id: c.id,
  title: c.title,
  metadata: c.metadata === null ? null : (JSON.parse(c.metadata) as Record<string, unknown>),
  tip: c.tip,
  revision: c.revision,
  position: c.position,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
  forkedFrom: c.ffc !== null && c.ffm !== null ? { conversationId: c.ffc, messageId: c.ffm } : null,
  messageCount: c.messageCount,
  turnCount: c.turnCount,
  cutAt: c.cutAt,
});

export const byLabel = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
