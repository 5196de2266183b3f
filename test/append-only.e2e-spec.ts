import Database from 'better-sqlite3';
import path from 'node:path';
import { clientFor, type Client } from './support/api';
import { type Harness, startHarness } from './support/harness';
import { checkWholeTurns, type LogRow, readLog } from './support/log';
import { workloadPhase1, workloadPhase2, type WorkloadState } from './support/workload';

/**
 * invariant 1 (the log is append-only) and invariant 2 (a turn is persisted atomically, never a
 * half-turn), checked on the SQLite file itself after a scripted workload over HTTP.
 */
describe('the event log on disk', () => {
  let h: Harness;
  let clients: { c: Client; tag: string; s?: WorkloadState }[];
  let mid: LogRow[];
  let end: LogRow[];

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
    const { turns, forks, problems } = checkWholeTurns(end);
    expect(problems).toEqual([]);
    expect(turns).toBeGreaterThan(20);
    expect(forks).toBe(4);
  });

  it('(the whole-turn check itself notices a half-turn)', () => {
    const i = end.findIndex((r) => r.type === 'TurnCommitted');
    const broken = [...end.slice(0, i), ...end.slice(i + 1)];
    expect(checkWholeTurns(broken).problems).toEqual([expect.stringContaining('half a turn')]);
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
