/**
 * Issue #23 item 4: one tenant's heaviest context call must not stall another tenant's requests.
 *
 *   npm run bench:stall -- [--turns 300] [--turn-bytes 12000] [--pages 1000] [--seconds 6]
 *                          [--calls 1] [--shape gemini-fine]
 *
 * The server is `arbor serve` (apps/api main, embedded SQLite) in its own process. The heavy
 * tenant has one conversation of `--turns` tool turns (~`--turn-bytes` each: 300 × 12 kB ≈
 * 3.6 MB) and asks `POST …/context {"provider":"gemini","mode":"snapshot","budgetTokens":900000,
 * "capabilities":{"vision":true,"maxSnapshotPages":<pages>,"snapshotShape":<shape>}}` (`--pages`
 * defaults to Gemini's own per-request image limit, the highest the server accepts). The
 * bystander is another tenant, this process, one `GET /v1/conversations/{id}` at a time:
 * its p50/p99 alone, then while the context call runs (`--calls` of them, one after another,
 * each on a new conversation so no page cache helps), then alone again. PASS when the p99 during
 * is ≤ 2× the worse of the two "alone" p99s. The baseline, in the same run: the same server with
 * ARBOR_HEAVY_THREADS=0 (the assembly in the request loop, as before the pool).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_KEY } from '../test/support/harness';
import { call, spawnReplica, type Replica } from '../test/support/scaled';
import { renderProfile } from './lib/cpuprofile';
import { createJsonClient } from './lib/http';
import {
  flagValue,
  fmt,
  hasFlag,
  machineLine,
  numberFlag,
  ratio,
  section,
  summarize,
  table,
  verdictLines,
  type Summary,
} from './lib/report';

const args = process.argv.slice(2);
const opts = {
  turns: numberFlag(args, 'turns', 300),
  turnBytes: numberFlag(args, 'turn-bytes', 12_000),
  pages: numberFlag(args, 'pages', 1000),
  seconds: numberFlag(args, 'seconds', 6),
  calls: numberFlag(args, 'calls', 1),
  shape: flagValue(args, 'shape') ?? 'gemini-fine',
  profile: hasFlag(args, 'profile'),
};
const ROOT = path.resolve(__dirname, '..');
const PROFILE_DIR = path.join(ROOT, 'bench', '.out', 'stall-profile');
const BOUND = 2;

/** Varied prose-like text (a tool's output), deterministic. */
const filler = (seed: number, bytes: number): string => {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'file.ts', 'error', 'return', '42', '{ ok }'];
  let out = '';
  for (let i = 0; out.length < bytes; i++) {
    out += words[(seed * 31 + i * 7) % words.length] + (i % 13 === 12 ? '\n' : ' ');
  }
  return out.slice(0, bytes);
};

const turnOf = (i: number, bytes: number) => {
  const id = `tu_${i}`;
  return [
    { role: 'user', content: [{ type: 'text', text: `step ${i}: ${filler(i, 200)}` }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: `running step ${i}` },
        { type: 'tool_use', id, name: 'bash', input: { cmd: `make step-${i}` } },
      ],
    },
    {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: id, content: filler(i + 1, bytes - 600) }],
    },
    { role: 'assistant', content: [{ type: 'text', text: `step ${i} done: ${filler(i, 200)}` }] },
  ];
};

const seedConversation = async (server: Replica, key: string): Promise<string> => {
  const conv = (await call(server.url, 'POST', '/v1/conversations', key, {})).body.id as string;
  let tip: string | null = null;
  for (let i = 0; i < opts.turns; i++) {
    const a = await call(server.url, 'POST', `/v1/conversations/${conv}/turns`, key, {
      turnId: `t-${i}`,
      expectedTip: tip,
      messages: turnOf(i, opts.turnBytes),
    });
    if (a.status !== 201 && a.status !== 200) throw new Error(`turn ${i}: ${a.status} ${a.text}`);
    tip = a.body.tip as string;
  }
  return conv;
};

interface Probe {
  summary: Summary;
  errors: number;
}

/** The bystander: one GET at a time until `until()` says stop. */
const bystander = async (
  server: Replica,
  key: string,
  conv: string,
  until: () => boolean,
): Promise<Probe> => {
  const client = createJsonClient(server.url, 1);
  const ms: number[] = [];
  let errors = 0;
  while (!until()) {
    const r = await client.call('GET', `/v1/conversations/${conv}`, { key });
    if (r.status === 200) ms.push(r.ms);
    else errors++;
  }
  client.close();
  return { summary: summarize(ms), errors };
};

const forSeconds = (s: number) => {
  const end = performance.now() + s * 1000;
  return () => performance.now() >= end;
};

interface Run {
  label: string;
  before: Probe;
  during: Probe;
  after: Probe;
  callMs: number[];
  statuses: number[];
  pages: number;
  load: number;
}

/** One server (`threads` = ARBOR_HEAVY_THREADS), seeded, measured alone / during / after. */
const measure = async (label: string, threads: string | null): Promise<Run> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-stall-'));
  const env: Record<string, string> = { LOG_LEVEL: 'warn', ARBOR_SQLITE_SYNCHRONOUS: 'NORMAL' };
  if (threads !== null) env.ARBOR_HEAVY_THREADS = threads;
  if (opts.profile) {
    // The server's CPU profile over the whole run (bench/lib/cpu-profile-preload.cjs).
    const d = path.join(PROFILE_DIR, label);
    fs.rmSync(d, { recursive: true, force: true });
    fs.mkdirSync(d, { recursive: true });
    env.NODE_OPTIONS = `-r ${path.join(ROOT, 'bench', 'lib', 'cpu-profile-preload.cjs')}`;
    env.ARBOR_CPU_PROFILE_DIR = d;
  }
  const server = await spawnReplica(dir, env, true);
  try {
    const admin = (method: string, route: string, body?: unknown) =>
      call(server.url, method, route, ADMIN_KEY, body);
    const heavy = (await admin('POST', '/v1/tenants', { name: 'heavy' })).body;
    const quiet = (await admin('POST', '/v1/tenants', { name: 'bystander' })).body;
    for (const t of [heavy, quiet]) {
      await admin('PUT', `/v1/tenants/${t.id}/limits`, {
        limit: { ratePerSecond: 100_000, burst: 100_000 },
      });
    }
    const heavyKey = heavy.apiKey as string;
    const quietKey = quiet.apiKey as string;
    const quietConv = (await call(server.url, 'POST', '/v1/conversations', quietKey, {})).body
      .id as string;
    const convs: string[] = [];
    for (let c = 0; c < opts.calls + 1; c++) convs.push(await seedConversation(server, heavyKey));
    const contextOf = (conv: string) =>
      call(
        server.url,
        'POST',
        `/v1/conversations/${conv}/context`,
        heavyKey,
        {
          provider: 'gemini',
          model: 'gemini-2.5-pro',
          mode: 'snapshot',
          budgetTokens: 900_000,
          capabilities: { vision: true, maxSnapshotPages: opts.pages, snapshotShape: opts.shape },
        },
        600_000,
      );
    // Warm-up (JIT, fonts, the worker pool): the first conversation, not measured.
    const warm = await contextOf(convs[0]);
    if (warm.status !== 200)
      console.log(`warm-up context: ${warm.status} ${warm.text.slice(0, 300)}`);
    const before = await bystander(server, quietKey, quietConv, forSeconds(opts.seconds));
    const callMs: number[] = [];
    const statuses: number[] = [];
    let pages = 0;
    let done = false;
    const heavyRun = (async () => {
      for (const conv of convs.slice(1)) {
        const t0 = performance.now();
        const r = await contextOf(conv);
        callMs.push(performance.now() - t0);
        statuses.push(r.status);
        if (r.status === 200) {
          pages += (JSON.stringify(r.body.body).match(/"inlineData"/g) ?? []).length;
        } else console.log(`context: ${r.status} ${r.text.slice(0, 300)}`);
      }
      done = true;
    })();
    const during = await bystander(server, quietKey, quietConv, () => done);
    await heavyRun;
    const after = await bystander(server, quietKey, quietConv, forSeconds(opts.seconds));
    const [load] = os.loadavg();
    console.log(`  ${label} done (load ${fmt(load, 2)})`);
    return { label, before, during, after, callMs, statuses, pages, load };
  } finally {
    await server.kill(opts.profile ? 'SIGUSR2' : 'SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
};

const aloneOf = (r: Run) => Math.max(r.before.summary.p99, r.after.summary.p99);

const main = async () => {
  console.log(machineLine());
  console.log(
    `heavy tenant: ${opts.turns} tool turns × ~${opts.turnBytes} B, POST …/context gemini ` +
      `snapshot, budgetTokens 900000, maxSnapshotPages ${opts.pages}, shape ${opts.shape}, ` +
      `${opts.calls} call(s); bystander: one GET at a time`,
  );
  // The baseline first: the same server with the assembly in the request loop.
  const runs = [await measure('in-loop', '0'), await measure('pool', null)];

  console.log(section('bystander GET latency, alone vs during the heavy context call (ms)'));
  console.log(
    table(
      [
        'server',
        'alone p50/p99',
        'during p50/p99 (max)',
        'after p50/p99',
        'p99 ratio',
        'during n',
        'context ms',
        'status',
        'pages',
        'load',
      ],
      runs.map((r) => [
        r.label,
        `${fmt(r.before.summary.p50)} / ${fmt(r.before.summary.p99)}`,
        `${fmt(r.during.summary.p50)} / ${fmt(r.during.summary.p99)} (${fmt(r.during.summary.max)})`,
        `${fmt(r.after.summary.p50)} / ${fmt(r.after.summary.p99)}`,
        ratio(r.during.summary.p99, aloneOf(r)),
        fmt(r.during.summary.n, 0),
        r.callMs.map((m) => fmt(m, 0)).join(', '),
        r.statuses.join(', '),
        fmt(r.pages, 0),
        fmt(r.load, 2),
      ]),
    ),
  );
  const [base, pool] = runs;
  console.log(
    '\np99 ratio = bystander p99 during ÷ the larger of the two "alone" p99s. ' +
      `in-loop = ARBOR_HEAVY_THREADS=0 (the assembly in the request loop); pool = the default. ` +
      `Bystander p99 during, pool vs in-loop: ${ratio(pool.during.summary.p99, base.during.summary.p99)}.\n`,
  );
  const errors = pool.before.errors + pool.during.errors + pool.after.errors;
  console.log(
    verdictLines('bench:stall', [
      {
        target: `bystander p99 during the heaviest context call ≤ ${BOUND}× alone (pool), all 200`,
        measured: `${fmt(pool.during.summary.p99)} ms vs ${fmt(aloneOf(pool))} ms (${ratio(pool.during.summary.p99, aloneOf(pool))}; in-loop ${ratio(base.during.summary.p99, aloneOf(base))}), ${errors} non-200, context ${pool.statuses.join(', ')}`,
        pass:
          pool.during.summary.p99 <= BOUND * aloneOf(pool) &&
          errors === 0 &&
          pool.statuses.every((s) => s === 200),
      },
    ]),
  );
  for (const label of opts.profile ? ['in-loop', 'pool'] : []) {
    const d = path.join(PROFILE_DIR, label);
    for (const f of fs.readdirSync(d)) {
      console.log(section(`server CPU profile, ${label} (${path.join(d, f)})`));
      console.log(renderProfile(path.join(d, f), 30));
    }
  }
};

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
