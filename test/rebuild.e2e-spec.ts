import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type EventStore } from '@arbor/event-store';
import { createProjector, dumpReadModels, openReadModelDb } from '@arbor/projections';
import { PROJECTION_FILTER, PROJECTIONS, ReadModelsService } from '@arbor/application';
import { EVENT_STORE } from '@arbor/application';
import { clientFor, type Client, exchange } from './support/api';
import { ADMIN_KEY, type Harness, startHarness } from './support/harness';
import { settle, workloadPhase1, workloadPhase2 } from './support/workload';

/** invariant 8: every projection rebuilt from the log equals the live projection, byte for byte. */
describe('read models rebuilt from the log', () => {
  let h: Harness;
  let a: Client;
  let b: Client;
  let live: string;
  let tmp: string;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-rebuild-'));
    h = await startHarness();
    a = clientFor(h, (await h.createTenant('A')).apiKey);
    b = clientFor(h, (await h.createTenant('B')).apiKey);
    const sa = await workloadPhase1(a, 'a');
    const sb = await workloadPhase1(b, 'b');
    // The live projector resumes from its stored position after a restart.
    await h.restart();
    await Promise.all([workloadPhase2(a, 'a', sa), workloadPhase2(b, 'b', sb)]);
    await settle(h);
    live = await h.app.get(ReadModelsService).dump();
  });
  afterAll(async () => {
    await h.destroy();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('the live read models are not trivial', () => {
    for (const table of ['rm_conversations', 'rm_messages', 'rm_active_branch', 'rm_forks'])
      expect(live).toContain(`${table}\n[`);
    for (const word of ['"dropped"', '"rewound"', '"active"', 'trimmed_by_resume'])
      expect(live).toContain(word);
    expect(live.split('\n').length).toBeGreaterThan(150);
  });

  it('POST /v1/admin/projections/rebuild gives the same dump, byte for byte', async () => {
    const denied = await h.call('POST', '/v1/admin/projections/rebuild', { key: a.key });
    expect(denied.status).toBe(401);
    const r = await h.call('POST', '/v1/admin/projections/rebuild', { key: ADMIN_KEY });
    expect(r.status).toBe(200);
    expect(r.body.position).toBe(
      (await h.call('GET', '/v1/admin/log', { key: ADMIN_KEY })).body.position,
    );
    expect(await h.app.get(ReadModelsService).dump()).toBe(live);
  });

  it('a fresh read-model database replayed from position 0 gives the same dump', async () => {
    const store = h.app.get<symbol, EventStore>(EVENT_STORE);
    const head = await store.headPosition();
    expect(head).not.toBeNull();
    for (const batchSize of [1, 7, 512]) {
      const db = openReadModelDb(path.join(tmp, `fresh-${batchSize}.sqlite`));
      const projector = createProjector({
        store,
        db,
        set: { projections: PROJECTIONS, filter: PROJECTION_FILTER },
        batchSize,
      });
      try {
        await projector.start();
        expect(await projector.waitFor(head as bigint, 10_000)).toBe(true);
        expect({ batchSize, dump: dumpReadModels(db, PROJECTIONS) }).toEqual({
          batchSize,
          dump: live,
        });
      } finally {
        await projector.stop();
        db.close();
      }
    }
  });

  it('keeps projecting live after a rebuild, and a rebuild after more writes still matches', async () => {
    const id = await a.start();
    const t = await a.turn(id, null, exchange('after rebuild'));
    expect(await a.branchIds(id)).toEqual(t.messageIds);
    await settle(h);
    const now = await h.app.get(ReadModelsService).dump();
    expect(now).not.toBe(live);
    const r = await h.call('POST', '/v1/admin/projections/rebuild', { key: ADMIN_KEY });
    expect(r.status).toBe(200);
    expect(await h.app.get(ReadModelsService).dump()).toBe(now);
    await h.restart();
    expect(await h.app.get(ReadModelsService).dump()).toBe(now);
    expect(await b.branchIds('b-main')).toEqual(expect.any(Array));
  });

  it('keeps serving complete read models while a rebuild runs, and switches files after', async () => {
    const ids = await Promise.all(
      [0, 1, 2].map(async () => {
        const id = await a.start();
        await a.turn(id, null, exchange('during rebuild'));
        return id;
      }),
    );
    const rebuilding = h.call('POST', '/v1/admin/projections/rebuild', { key: ADMIN_KEY });
    const reads = [];
    for (let i = 0; i < 30; i++) reads.push(a.get(a.conv(ids[i % 3])));
    const statuses = (await Promise.all(reads)).map((r) => r.status);
    expect((await rebuilding).status).toBe(200);
    expect(statuses.every((st) => st === 200)).toBe(true);
    const current = fs.readFileSync(path.join(h.dataDir, 'readmodels.current'), 'utf8');
    expect(fs.existsSync(path.join(h.dataDir, current))).toBe(true);
    expect(fs.readdirSync(h.dataDir).filter((f) => /^readmodels.*\.sqlite$/.test(f))).toEqual([
      current,
    ]);
  });
});
