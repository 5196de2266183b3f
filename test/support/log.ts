import Database from 'better-sqlite3';
import path from 'node:path';
import { decodeMetadata } from '@arbor/event-store/sqlite';

/** One row of the SQLite log (libs/event-store/src/sqlite/schema.ts). */
export interface LogRow {
  position: number;
  stream: string;
  revision: number;
  event_id: string;
  type: string;
  data: string;
  metadata: string;
  created: number;
}

/** Every row of the log, read through a separate read-only connection to the file; metadata as JSON text. */
export const readLog = (dataDir: string): LogRow[] => {
  const db = new Database(path.join(dataDir, 'events.sqlite'), {
    readonly: true,
    fileMustExist: true,
  });
  try {
    const rows = db.prepare('SELECT * FROM events ORDER BY position').all() as (LogRow & {
      format: number;
      chain_prev: Buffer | null;
      chain_hash: Buffer | null;
    })[];
    return rows.map(({ format, chain_prev, chain_hash, ...row }) => ({
      ...row,
      metadata: JSON.stringify(decodeMetadata(format, row.metadata, chain_prev, chain_hash)),
    }));
  } finally {
    db.close();
  }
};

/**
 * invariant 2 on the log itself: groups the conversation events into appends (one command = one
 * causation id on one stream) and checks that each sits at consecutive positions and that every
 * MessageAppended is closed in its own append — by the TurnCommitted naming exactly those
 * messages, or (a fork's opening append) by the fork's TipMoved. Returns what it saw, or the first
 * broken append as a message.
 */
export const checkWholeTurns = (
  rows: readonly LogRow[],
): { turns: number; forks: number; problems: string[] } => {
  const appends = new Map<string, LogRow[]>();
  for (const r of rows.filter((x) => x.stream.startsWith('conv-'))) {
    const key = `${r.stream} ${(JSON.parse(r.metadata) as { causationId: string }).causationId}`;
    appends.set(key, [...(appends.get(key) ?? []), r]);
  }
  let turns = 0;
  let forks = 0;
  const problems: string[] = [];
  for (const [key, group] of appends) {
    const at = (what: string) => problems.push(`${key}: ${what}`);
    if (group.some((r, i) => r.position !== group[0].position + i)) at('not one contiguous append');
    const types = group.map((r) => r.type);
    if (!types.includes('MessageAppended')) continue;
    const appended = group
      .filter((r) => r.type === 'MessageAppended')
      .map((r) => (JSON.parse(r.data) as { message: { id: string } }).message.id);
    const last = JSON.parse(group[group.length - 1].data) as Record<string, unknown>;
    if (types[0] === 'ConversationStarted') {
      forks++;
      if (types[1] !== 'ForkedFrom') at('fork opening without ForkedFrom');
      if (types[types.length - 1] !== 'TipMoved' || last.reason !== 'fork')
        at('fork opening not closed by its TipMoved');
      if (last.to !== appended[appended.length - 1]) at('fork tip is not the last copied message');
    } else {
      turns++;
      const shape = [...appended.map(() => 'MessageAppended'), 'TurnCommitted'];
      if (JSON.stringify(types) !== JSON.stringify(shape)) at(`half a turn: ${types.join(',')}`);
      else if (JSON.stringify(last.messageIds) !== JSON.stringify(appended))
        at('TurnCommitted does not name its messages');
      else if (last.tip !== appended[appended.length - 1]) at('turn tip is not its last message');
    }
  }
  return { turns, forks, problems };
};
