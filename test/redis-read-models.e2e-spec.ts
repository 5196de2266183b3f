import { type EventStore } from '@arbor/event-store';
import {
  asyncQueries,
  createConversationQueries,
  createProjector,
  generationKey,
  openReadModelDb,
  type ReadModelQueries,
} from '@arbor/projections';
import {
  cleanupPrefix,
  connectTestRedis,
  describeWithRedis,
  randomPrefix,
  TEST_REDIS_URL,
} from '@arbor/projections/testing/redis';
import { EVENT_STORE, PROJECTION_FILTER, PROJECTIONS, ReadModelsService } from '@arbor/application';
import { clientFor, type Client } from './support/api';
import { ADMIN_KEY, type Harness, startHarness } from './support/harness';
import { settle, workloadPhase1, workloadPhase2 } from './support/workload';

/**
 * The app with REDIS_URL set: the read models live in Redis. The same workload as the rebuild
 * suite (turns, branches, forks, checkpoints rewound and dropped, failures, resume, a restart),
 * then every query answer from Redis is compared with the embedded SQLite read models projected
 * from the same log, and a rebuild (a new generation) equals the live one byte for byte.
 */
describeWithRedis('read models in Redis (REDIS_URL set)', () => {
  const prefix = randomPrefix('e2e');
  let h: Harness;
  let a: Client;
  let b: Client;
  const tenantIds: string[] = [];
  let redisQueries: ReadModelQueries;
  let sqlite: { queries: ReadModelQueries; close(): Promise<void> };

  beforeAll(async () => {
    h = await startHarness({ REDIS_URL: TEST_REDIS_URL, ARBOR_REDIS_PREFIX: prefix });
    const ta = await h.createTenant('A');
    const tb = await h.createTenant('B');
    tenantIds.push(ta.id, tb.id);
    a = clientFor(h, ta.apiKey);
    b = clientFor(h, tb.apiKey);
    const sa = await workloadPhase1(a, 'a');
    const sb = await workloadPhase1(b, 'b');
    // The live projector resumes from the checkpoint stored in Redis after a restart.
    await h.restart();
    await Promise.all([workloadPhase2(a, 'a', sa), workloadPhase2(b, 'b', sb)]);
    await settle(h);
    redisQueries = h.app.get(ReadModelsService).queries;
    const store = h.app.get<symbol, EventStore>(EVENT_STORE);
    const db = openReadModelDb(':memory:');
    const projector = createProjector({
      store,
      db,
      set: { projections: PROJECTIONS, filter: PROJECTION_FILTER },
    });
    await projector.start();
    await projector.waitFor((await store.headPosition()) as bigint, 10_000);
    sqlite = {
      queries: asyncQueries(createConversationQueries(db)),
      close: async () => {
        await projector.stop();
        db.close();
      },
    };
  }, 120_000);

  afterAll(async () => {
    await sqlite?.close();
    await h?.destroy();
    const client = await connectTestRedis();
    await cleanupPrefix(client, prefix);
    await client.close();
  });

  it('answers every query as the embedded SQLite read models of the same log do', async () => {
    let compared = 0;
    for (const t of tenantIds) {
      for (const pageSize of [1, 3, 100]) {
        for (let after: number | null = 0; after !== null;) {
          const page = await redisQueries.listConversations(t, after, pageSize);
          expect(page).toEqual(await sqlite.queries.listConversations(t, after, pageSize));
          after = page.nextSeq;
        }
      }
      const all = await sqlite.queries.listConversations(t, 0, 1000);
      for (const c of all.items) {
        const both = async <T>(q: (x: ReadModelQueries) => Promise<T>) =>
          expect(await q(redisQueries)).toEqual(await q(sqlite.queries));
        await both((x) => x.getConversation(t, c.id));
        await both((x) => x.tree(t, c.id));
        await both((x) => x.allMessages(t, c.id));
        await both((x) => x.checkpoints(t, c.id));
        await both((x) => x.pendingFailure(t, c.id));
        for (const size of [1, 4, 1000]) await both((x) => x.activeBranchPage(t, c.id, 0, size));
        for (const m of await sqlite.queries.allMessages(t, c.id)) {
          await both((x) => x.getMessage(t, c.id, m.id));
          await both((x) => x.depthOf(t, c.id, m.id));
        }
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(4);
  });

  it('serves the HTTP reads from Redis (tree, checkpoints, branch)', async () => {
    const list = await h.call('GET', '/v1/conversations', { key: a.key });
    expect(list.status).toBe(200);
    const id = (list.body.items as { id: string }[])[0].id;
    for (const p of ['', '/tree', '/checkpoints', '/messages']) {
      const r = await h.call('GET', `/v1/conversations/${id}${p}`, { key: a.key });
      expect({ p, status: r.status }).toEqual({ p, status: 200 });
    }
    const other = await h.call('GET', `/v1/conversations/${id}`, { key: b.key });
    expect(other.status).toBe(404);
  });

  it('a rebuild writes a new generation equal to the live one, byte for byte, and switches', async () => {
    const live = await h.app.get(ReadModelsService).dump();
    expect(live).toContain(':conv\n');
    expect(live).toContain('rewound');
    expect(live).toContain('dropped');
    const client = await connectTestRedis();
    try {
      const before = await client.get(generationKey(prefix));
      const r = await h.call('POST', '/v1/admin/projections/rebuild', { key: ADMIN_KEY });
      expect(r.status).toBe(200);
      const after = await client.get(generationKey(prefix));
      expect(after).not.toBe(before);
      expect(await h.app.get(ReadModelsService).dump()).toBe(live);
      // The old generation's keys are gone.
      expect(await client.scanKeys(`${prefix}:${before}:*`)).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
