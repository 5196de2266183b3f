import Database from 'better-sqlite3';
import path from 'node:path';
import { clientFor, type Client } from './support/api';
import { type Harness, startHarness } from './support/harness';
import { workloadPhase1, workloadPhase2, type WorkloadState } from './support/workload';

interface Row {
  position: number;
  stream: string;
  revision: number;
  event_id: string;
  type: string;
  data: string;
  metadata: string;
  created: number;
}

/** Every row of the log, read through a separate read-only connection to the file. */
const readLog = (dataDir: string): Row[] => {
  const db = new Database(path.join(dataDir, 'events.sqlite'), {
    readonly: true,
    fileMustExist: true,
  });
  try {
    return db.prepare('SELECT * FROM events ORDER BY position').all() as Row[];
  } finally {
    db.close();
  }
};

/**
 * SPEC §5.1 (the log is append-only) and §5.2 (a turn is persisted atomically, never a
 * half-turn), checked on the SQLite file itself after a scripted workload over HTTP.
 */
describe('the event log on disk', () => {
  let h: Harness;
  let clients: { c: Client; tag: string; s?: WorkloadState }[];
  let mid: Row[];
  let end: Row[];

  beforeAll(async () => {
    h = await startHarness();
    clients = [
      { c: clientFor(h, (await h.createTenant('A')).apiKey), tag: 'a' },
      { c: clientFor(h, (await h.createTenant('B')).apiKey), tag: 'b' },
    ];
    for (const x of clients) x.s = await workloadPhase1(x.c, x.tag);
    mid = readLog(h.dataDir);
    // Rewinds, a resume that drops checkpoints, failures, forks of forks, a restart.
    await workloadPhase2(clients[0].c, 'a', clients[0].s as WorkloadState);
    await h.restart();
    await workloadPhase2(clients[1].c, 'b', clients[1].s as WorkloadState);
    end = readLog(h.dataDir);
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('only grows: the rows seen mid-way are an unchanged prefix of the rows at the end', () => {
    expect(mid.length).toBeGreaterThan(50);
    expect(end.length).toBeGreaterThan(mid.length);
    expect(end.slice(0, mid.length)).toEqual(mid);
    const types = new Set(end.slice(mid.length).map((r) => r.type));
    for (const t of [
      'CheckpointRewound',
      'CheckpointDropped',
      'RunResumed',
      'TurnFailed',
      'TipMoved',
    ])
      expect(types).toContain(t);
  });

  it('has gap-free positions and per-stream revisions', () => {
    expect(end.map((r) => r.position)).toEqual(end.map((_, i) => i + 1));
    const next = new Map<string, number>();
    for (const r of end) {
      expect({ stream: r.stream, revision: r.revision }).toEqual({
        stream: r.stream,
        revision: next.get(r.stream) ?? 0,
      });
      next.set(r.stream, r.revision + 1);
    }
    expect(new Set(end.map((r) => r.event_id)).size).toBe(end.length);
  });

  it('holds whole turns only: every MessageAppended is closed in its own append', () => {
    // One command = one append = one causation id on one stream, at consecutive positions.
    const appends = new Map<string, Row[]>();
    for (const r of end.filter((x) => x.stream.startsWith('conv-'))) {
      const key = `${r.stream} ${(JSON.parse(r.metadata) as { causationId: string }).causationId}`;
      appends.set(key, [...(appends.get(key) ?? []), r]);
    }
    let turns = 0;
    let forks = 0;
    for (const rows of appends.values()) {
      expect(rows.map((r) => r.position)).toEqual(rows.map((_, i) => rows[0].position + i));
      const types = rows.map((r) => r.type);
      if (!types.includes('MessageAppended')) continue;
      const appended = rows
        .filter((r) => r.type === 'MessageAppended')
        .map((r) => (JSON.parse(r.data) as { message: { id: string } }).message.id);
      if (types[0] === 'ConversationStarted') {
        // A fork's opening append: the copied path, its checkpoints, then its tip.
        forks++;
        expect(types[1]).toBe('ForkedFrom');
        expect(types[types.length - 1]).toBe('TipMoved');
        const tip = JSON.parse(rows[rows.length - 1].data) as { to: string; reason: string };
        expect(tip).toMatchObject({ to: appended[appended.length - 1], reason: 'fork' });
      } else {
        turns++;
        expect(types).toEqual([...appended.map(() => 'MessageAppended'), 'TurnCommitted']);
        const committed = JSON.parse(rows[rows.length - 1].data) as {
          messageIds: string[];
          tip: string;
        };
        expect(committed.messageIds).toEqual(appended);
        expect(committed.tip).toBe(appended[appended.length - 1]);
      }
    }
    expect(turns).toBeGreaterThan(20);
    expect(forks).toBe(4);
  });

  it('the triggers refuse updates and deletes even from a writable connection', () => {
    const db = new Database(path.join(h.dataDir, 'events.sqlite'));
    try {
      db.pragma('busy_timeout = 5000');
      expect(() => db.prepare("UPDATE events SET data = '{}' WHERE position = 1").run()).toThrow(
        /append-only/,
      );
      expect(() => db.prepare('DELETE FROM events WHERE position = 1').run()).toThrow(
        /append-only/,
      );
    } finally {
      db.close();
    }
    expect(readLog(h.dataDir)).toEqual(end);
  });
});
