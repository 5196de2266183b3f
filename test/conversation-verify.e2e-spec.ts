/**
 * GET /v1/conversations/{id}/verify, the hash-chain verdict the console shows in the audit log:
 * a log the server wrote verifies; an event edited in the SQLite file is reported with its
 * revision; another tenant's key gets the same 404 as an unknown id.
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import { clientFor, exchange, toolTurn } from './support/api';
import { type Harness, startHarness } from './support/harness';

describe('GET /v1/conversations/{id}/verify', () => {
  let h: Harness;
  let key: string;
  let other: string;
  let id: string;
  beforeAll(async () => {
    h = await startHarness();
    key = (await h.createTenant('audited')).apiKey;
    other = (await h.createTenant('someone else')).apiKey;
    const c = clientFor(h, key);
    id = await c.start({ title: 'audited' });
    const t1 = await c.turn(id, null, toolTurn('1'));
    await c.turn(id, t1.tip, exchange('2'));
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('verifies the log the server wrote, and counts every event', async () => {
    const events = await h.call('GET', `/v1/conversations/${id}/events?limit=1000`, { key });
    const r = await h.call('GET', `/v1/conversations/${id}/verify`, { key });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ conversationId: id, ok: true, findings: [] });
    expect(r.body.events).toBe(events.body.items.length);
    expect(r.body.chained).toBe(events.body.items.length);
    expect(r.body.lastRevision).toBe(events.body.items.at(-1).revision);
  });

  it("answers another tenant's key and an unknown id alike: 404 conversation_not_found", async () => {
    const theirs = await h.call('GET', `/v1/conversations/${id}/verify`, { key: other });
    const unknown = await h.call('GET', '/v1/conversations/no-such-id/verify', { key });
    expect(theirs.status).toBe(404);
    expect(theirs.body.code).toBe('conversation_not_found');
    expect(unknown.status).toBe(404);
    expect({ ...theirs.body, instance: null }).toEqual({ ...unknown.body, instance: null });
  });

  it('reports an event edited in the file, at its revision', async () => {
    // Written beside the running server (WAL: another connection may write), as an intruder would.
    // The content is sealed in the file, so the intruder edits what is in clear: a message's role.
    const db = new Database(path.join(h.dataDir, 'events.sqlite'));
    db.exec('DROP TRIGGER IF EXISTS events_no_update');
    const row = db
      .prepare(
        `SELECT position, revision, data FROM events WHERE type = 'MessageAppended' AND data LIKE '%"role":"assistant"%' LIMIT 1`,
      )
      .get() as { position: number; revision: number; data: string };
    db.prepare('UPDATE events SET data = ? WHERE position = ?').run(
      row.data.replace('"role":"assistant"', '"role":"user"'),
      row.position,
    );
    db.close();
    const r = await h.call('GET', `/v1/conversations/${id}/verify`, { key });
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(false);
    expect(r.body.totals.modified).toBe(1);
    expect(r.body.findings).toEqual([
      expect.objectContaining({ kind: 'modified', revision: Number(row.revision) }),
    ]);
  });
});
