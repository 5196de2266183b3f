import { clientFor, exchange, type MessageIn, toolTurn } from './support/api';
import { faultPlan, faultyStoreFactory } from './support/faulty-store';
import { ADMIN_KEY, type Harness, type HttpResult, startHarness } from './support/harness';
import { checkWholeTurns, type LogRow, readLog } from './support/log';

/**
 * Issue 6 item 3: storage faults. The N-th append to the log fails with SQLite's
 * SQLITE_IOERR_WRITE (before anything is written), for every N the workload reaches. The API must
 * answer 503 store_unavailable, leave a clean prefix of the fault-free log on disk, keep no state
 * from the failed append, and accept the retried request as if the fault never happened.
 */

interface Ctx {
  key: string;
  [k: string]: string;
}

interface Step {
  name: string;
  expect: number;
  run(h: Harness, ctx: Ctx): Promise<HttpResult>;
  save?(ctx: Ctx, body: Record<string, unknown>): void;
}

const conv = (id: string, rest = '') => `/v1/conversations/${encodeURIComponent(id)}${rest}`;
const post = (h: Harness, ctx: Ctx, url: string, body: unknown) =>
  clientFor(h, ctx.key).post(url, body);
const turn = (
  name: string,
  convKey: string,
  parentKey: string | null,
  messages: MessageIn[],
  saveAs: string,
): Step => ({
  name,
  expect: 201,
  run: (h, ctx) =>
    post(h, ctx, conv(ctx[convKey], '/turns'), {
      turnId: `turn-${name}`,
      parentId: parentKey === null ? null : ctx[parentKey],
      messages,
    }),
  save: (ctx, body) => (ctx[saveAs] = body.tip as string),
});

const WORKLOAD: Step[] = [
  {
    name: 'tenant',
    expect: 201,
    run: (h) => h.call('POST', '/v1/tenants', { key: ADMIN_KEY, body: { name: 'faults' } }),
    save: (ctx, body) => (ctx.key = body.apiKey as string),
  },
  {
    name: 'start',
    expect: 201,
    run: (h, ctx) => post(h, ctx, '/v1/conversations', { id: 'main', title: 'main' }),
    save: (ctx, body) => (ctx.main = body.id as string),
  },
  turn('t1', 'main', null, toolTurn('one', 2), 't1'),
  turn('t2', 'main', 't1', exchange('two'), 't2'),
  turn('t3', 'main', 't1', exchange('three, edited'), 't3'),
  {
    name: 'tip',
    expect: 200,
    run: (h, ctx) => clientFor(h, ctx.key).put(conv(ctx.main, '/tip'), { messageId: ctx.t2 }),
  },
  {
    name: 'checkpoint',
    expect: 201,
    run: (h, ctx) =>
      post(h, ctx, conv(ctx.main, '/checkpoints'), { label: 'cp', messageId: ctx.t2 }),
  },
  {
    name: 'fork',
    expect: 201,
    run: (h, ctx) => post(h, ctx, conv(ctx.main, '/forks'), { messageId: ctx.t2, title: 'fork' }),
    save: (ctx, body) => {
      ctx.fork = body.id as string;
      ctx.forkBase = (body.idMap as Record<string, string>)[ctx.t2];
    },
  },
  turn('f1', 'fork', 'forkBase', toolTurn('fork', 3), 'f1'),
  {
    name: 'failure',
    expect: 201,
    run: (h, ctx) => post(h, ctx, conv(ctx.main, '/failures'), { input: 'x', error: 'boom' }),
  },
  turn('t4', 'main', 't2', toolTurn('four'), 't4'),
  {
    name: 'rewind',
    expect: 200,
    run: (h, ctx) => post(h, ctx, conv(ctx.main, '/checkpoints/cp/rewind'), { digest: 'd' }),
  },
  turn('t5', 'main', 't2', exchange('five'), 't5'),
];

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;
const SECRETISH = /\b(arb_[A-Za-z0-9_-]+|[0-9a-f]{32,}|[A-Za-z0-9+/_-]{40,}={0,2})/g;

/** The log as "same events in the same order": stream, revision, type, data — ids, times and hashes replaced. */
const normalize = (rows: readonly LogRow[]): string[] => {
  const seen = new Map<string, string>();
  const ph = (s: string) => {
    if (!seen.has(s)) seen.set(s, `<${seen.size}>`);
    return seen.get(s) as string;
  };
  // Tenant and key ids are random but not UUIDs: learn them from the events that name them.
  const random = new Set<string>();
  for (const r of rows) {
    for (const m of r.data.matchAll(/"(tenantId|keyId)":"([^"]+)"/g)) random.add(m[2]);
  }
  const escaped = [...random].map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const RANDOM = escaped.length ? new RegExp(escaped.join('|'), 'g') : /$^/g;
  return rows.map((r) =>
    `${r.stream}#${r.revision} ${r.type} ${r.data}`
      // A sealed box is random base64 that may start with '+' or '/', where \b finds no edge.
      .replace(/"box":"([^"]+)"/g, (_m, box: string) => `"box":"${ph(box)}"`)
      .replace(RANDOM, ph)
      .replace(UUID, ph)
      .replace(TIME, '<time>')
      .replace(SECRETISH, ph),
  );
};

const runStep = async (h: Harness, ctx: Ctx, step: Step): Promise<HttpResult> => {
  const r = await step.run(h, ctx);
  if (r.status === step.expect && step.save) step.save(ctx, r.body as Record<string, unknown>);
  return r;
};

describe('storage faults (e2e)', () => {
  jest.setTimeout(300_000);

  let baseline: string[] = [];
  /** Log length after each step of the fault-free run. */
  const after: number[] = [];
  let appends = 0;
  /** The final log of the run whose fault hit the fork's source-side append (see below). */
  let forkSourceLog: string[] | null = null;

  beforeAll(async () => {
    const plan = faultPlan(0);
    const h = await startHarness({}, faultyStoreFactory(plan));
    try {
      const ctx = { key: '' } as Ctx;
      for (const step of WORKLOAD) {
        const r = await runStep(h, ctx, step);
        if (r.status !== step.expect) throw new Error(`${step.name}: ${r.status} ${r.text}`);
        after.push(readLog(h.dataDir).length);
      }
      baseline = normalize(readLog(h.dataDir));
      appends = plan.calls;
    } finally {
      await h.destroy();
    }
  });

  it('the fault-free workload appends many times and writes whole turns', () => {
    expect(appends).toBeGreaterThanOrEqual(WORKLOAD.length);
    expect(baseline.length).toBe(after[after.length - 1]);
  });

  /** Runs the workload failing the N-th append; returns where it hit and the final log. */
  const runWithFault = async (n: number) => {
    const plan = faultPlan(n);
    const h = await startHarness({}, faultyStoreFactory(plan));
    try {
      const ctx = { key: '' } as Ctx;
      let hit: { step: string; appendsBefore: number } | null = null;
      for (const [i, step] of WORKLOAD.entries()) {
        const callsBefore = plan.calls;
        const r = await runStep(h, ctx, step);
        if (!hit && plan.calls >= n) {
          hit = { step: step.name, appendsBefore: n - 1 - callsBefore };
          const where = `N=${n} at ${step.name}`;
          expect({ where, status: r.status, code: r.body?.code }).toEqual({
            where,
            status: 503,
            code: 'store_unavailable',
          });
          expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
          const rows = readLog(h.dataDir);
          const before = i === 0 ? 0 : after[i - 1];
          expect(rows.length).toBeGreaterThanOrEqual(before);
          expect(rows.length).toBeLessThanOrEqual(after[i]);
          expect(normalize(rows)).toEqual(baseline.slice(0, rows.length));
          expect(checkWholeTurns(rows).problems).toEqual([]);
          // The retry decides on the real log: no phantom revision, no half-applied state.
          const retry = await runStep(h, ctx, step);
          expect({ where, status: retry.status }).toEqual({ where, status: step.expect });
        } else {
          expect({ step: step.name, n, status: r.status }).toEqual({
            step: step.name,
            n,
            status: step.expect,
          });
        }
      }
      if (!hit) throw new Error(`N=${n}: the fault was never hit`);
      const rows = readLog(h.dataDir);
      expect(checkWholeTurns(rows).problems).toEqual([]);
      return { ...hit, log: normalize(rows) };
    } finally {
      await h.destroy();
    }
  };

  /** A fork is two appends (the new stream, then ConversationForked on the source): see below. */
  const isForkSourceAppend = (hit: { step: string; appendsBefore: number }) =>
    hit.step === 'fork' && hit.appendsBefore > 0;

  it('for every N, failing the N-th append answers 503, leaves a prefix, and the retry works', async () => {
    expect(appends).toBeGreaterThan(0);
    let checked = 0;
    for (let n = 1; n <= appends; n++) {
      const result = await runWithFault(n);
      if (isForkSourceAppend(result)) {
        forkSourceLog = result.log;
        continue;
      }
      expect({ n, log: result.log }).toEqual({ n, log: baseline });
      checked++;
    }
    expect(checked).toBe(appends - 1);
  });

  // When the fork's second append (ConversationForked on the source stream) fails, the fork
  // stream is already written and the request answers 503. The retry derives the same fork id
  // (same request, same source revision), finds that stream opening exactly as it would write it,
  // and only completes the source side: one fork, the one the client gets the id of.
  it('a fork whose source-side append failed is not duplicated by the retry', () => {
    expect(forkSourceLog).not.toBeNull();
    expect(forkSourceLog).toEqual(baseline);
  });
});
