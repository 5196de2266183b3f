/**
 * Issue #12 item 5: one tenant flooding the service must not push another tenant's p99 over its
 * normal value. Every party is its own process, so the figures are the server's, not a shared
 * event loop's:
 *
 *   server:   `arbor serve` (apps/api main, as bench:scale starts it), embedded ("memory": the
 *             bucket in the process) and with REDIS_URL ("redis": the bucket in a redis-server
 *             this bench starts on a free port, own key prefix; read models there too);
 *   flooder:  `--flooders` child processes (bench/lib/flooder.ts), `--clients` keep-alive loops in
 *             all, closed loop, as one tenant limited to `--limit` requests/s (burst = limit);
 *   victim:   this process, one request at a time (`GET /v1/conversations/{id}`), another tenant.
 *
 *   npm run bench:flood -- [--seconds 8] [--clients 16] [--flooders 2] [--limit 50]
 *                          [--mode get|post] [--body 65536] [--rounds 1] [--shapes memory,redis]
 *
 * Per shape and round: victim p50/p99 alone, then during the flood, then alone again (the machine
 * is shared: a drifting baseline shows in the two "alone" figures); the ratio of p99 during to
 * the worse of the two "alone" p99s; the flood's answers per second by status; the server's CPU
 * per second in each phase (utime + stime, /proc). PASS when victim p99 during ≤ 1.5× alone.
 *
 * Why 1.5×: on this 2-core machine the flooder processes and the server share the cores, so a
 * closed-loop flood takes CPU from the server whatever the server does; 1.5× leaves room for that
 * contention and still fails an unbounded effect (the single-process figure was 8.7×).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exchange } from '../test/support/api';
import { ADMIN_KEY } from '../test/support/harness';
import { call, spawnReplica, startRedisServer, type Replica } from '../test/support/scaled';
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
  seconds: numberFlag(args, 'seconds', 8),
  clients: numberFlag(args, 'clients', 16),
  flooders: numberFlag(args, 'flooders', 2),
  limit: numberFlag(args, 'limit', 50),
  mode: flagValue(args, 'mode') === 'post' ? 'post' : 'get',
  body: numberFlag(args, 'body', 65_536),
  rounds: numberFlag(args, 'rounds', 1),
  shapes: (flagValue(args, 'shapes') ?? 'memory,redis').split(','),
  profile: hasFlag(args, 'profile'),
};
const ROOT = path.resolve(__dirname, '..');
const BOUND = 1.5;
const PROFILE_DIR = path.join(ROOT, 'bench', '.out', 'flood-profiles');

const cpuMs = (pid: number): number => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};

interface Phase {
  victim: Summary;
  victimErrors: number;
  serverCpuPerSec: number;
}

/** The victim: one request at a time for `seconds`, keep-alive. */
const victimPhase = async (server: Replica, key: string, conv: string): Promise<Phase> => {
  const client = createJsonClient(server.url, 1);
  const pid = server.child.pid as number;
  const ms: number[] = [];
  let errors = 0;
  const cpu0 = cpuMs(pid);
  const t0 = performance.now();
  const end = t0 + opts.seconds * 1000;
  while (performance.now() < end) {
    const r = await client.call('GET', `/v1/conversations/${conv}`, { key });
    if (r.status === 200) ms.push(r.ms);
    else errors++;
  }
  const secs = (performance.now() - t0) / 1000;
  client.close();
  return {
    victim: summarize(ms),
    victimErrors: errors,
    serverCpuPerSec: (cpuMs(pid) - cpu0) / secs,
  };
};

interface Flood {
  stop(): Promise<Map<number, number>>;
}

const startFlood = async (server: Replica, key: string): Promise<Flood> => {
  const per = Math.max(1, Math.round(opts.clients / opts.flooders));
  const children: { child: ChildProcess; out: Promise<string> }[] = [];
  for (let i = 0; i < opts.flooders; i++) {
    const child = spawn(
      process.execPath,
      [
        '-r',
        '@swc-node/register',
        'bench/lib/flooder.ts',
        server.url,
        key,
        String(per),
        opts.mode,
        String(opts.body),
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let text = '';
    const started = new Promise<void>((resolve, reject) => {
      child.stdout?.on('data', (d: Buffer) => {
        text += d.toString();
        if (text.includes('flooding')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`flooder exited (${code})`)));
    });
    const out = new Promise<string>((resolve) => child.once('exit', () => resolve(text)));
    await started;
    children.push({ child, out });
  }
  return {
    stop: async () => {
      for (const c of children) c.child.kill('SIGTERM');
      const total = new Map<number, number>();
      for (const c of children) {
        const line = (await c.out).split('\n').find((l) => l.startsWith('{'));
        const answers = line
          ? (JSON.parse(line) as { answers: Record<string, number> }).answers
          : {};
        for (const [s, n] of Object.entries(answers))
          total.set(Number(s), (total.get(Number(s)) ?? 0) + n);
      }
      return total;
    },
  };
};

interface Round {
  shape: string;
  round: number;
  before: Phase;
  during: Phase;
  after: Phase;
  flood: Map<number, number>;
  floodSecs: number;
  load: string;
}

const measure = async (shape: string, server: Replica, round: number): Promise<Round> => {
  const admin = (method: string, route: string, body?: unknown) =>
    call(server.url, method, route, ADMIN_KEY, body);
  const flooder = (await admin('POST', '/v1/tenants', { name: `flooder-${round}` })).body;
  const victim = (await admin('POST', '/v1/tenants', { name: `victim-${round}` })).body;
  await admin('PUT', `/v1/tenants/${flooder.id}/limits`, {
    limit: { ratePerSecond: opts.limit, burst: opts.limit },
  });
  // The victim is limited too (so its requests take the same bucket path), far above its rate.
  await admin('PUT', `/v1/tenants/${victim.id}/limits`, {
    limit: { ratePerSecond: 100_000, burst: 100_000 },
  });
  const key = victim.apiKey as string;
  const conv = (await call(server.url, 'POST', '/v1/conversations', key, {})).body.id as string;
  let tip: string | null = null;
  for (let i = 0; i < 5; i++) {
    const a = await call(server.url, 'POST', `/v1/conversations/${conv}/turns`, key, {
      turnId: `t-${i}`,
      expectedTip: tip,
      messages: exchange(`turn ${i}`),
    });
    tip = a.body.tip as string;
  }
  // Warm-up of both paths (JIT), not measured.
  const warm = await startFlood(server, flooder.apiKey as string);
  await new Promise((r) => setTimeout(r, 1500));
  await warm.stop();
  const before = await victimPhase(server, key, conv);
  const flood = await startFlood(server, flooder.apiKey as string);
  const f0 = performance.now();
  let during: Phase;
  let answers: Map<number, number>;
  try {
    during = await victimPhase(server, key, conv);
  } finally {
    answers = await flood.stop();
  }
  const floodSecs = (performance.now() - f0) / 1000;
  const after = await victimPhase(server, key, conv);
  const [l1] = os.loadavg();
  return { shape, round, before, during, after, flood: answers, floodSecs, load: fmt(l1, 2) };
};

const total = (answers: Map<number, number>): number =>
  [...answers.values()].reduce((a, b) => a + b, 0);

const main = async () => {
  console.log(machineLine());
  console.log(
    `flood: ${opts.clients} clients in ${opts.flooders} processes, ${opts.mode.toUpperCase()}` +
      `${opts.mode === 'post' ? ` ${opts.body} B bodies` : ''}, tenant limited to ${opts.limit}/s; ` +
      `victim: one GET at a time; ${opts.seconds} s per phase`,
  );
  const redis = opts.shapes.includes('redis') ? await startRedisServer() : null;
  const servers = new Map<string, Replica>();
  const dirs: string[] = [];
  const rounds: Round[] = [];
  try {
    for (const shape of opts.shapes) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), `arbor-flood-${shape}-`));
      dirs.push(dir);
      const env: Record<string, string> = { LOG_LEVEL: 'warn', ARBOR_SQLITE_SYNCHRONOUS: 'NORMAL' };
      if (shape === 'redis') {
        if (redis === null) throw new Error('no redis');
        env.REDIS_URL = redis.url;
        env.ARBOR_REDIS_PREFIX = `arbor-bench:flood:${process.pid}`;
      }
      if (opts.profile) {
        // The server's CPU profile over the whole run (bench/lib/cpu-profile-preload.cjs).
        const d = path.join(PROFILE_DIR, shape);
        fs.rmSync(d, { recursive: true, force: true });
        fs.mkdirSync(d, { recursive: true });
        env.NODE_OPTIONS = `-r ${path.join(ROOT, 'bench', 'lib', 'cpu-profile-preload.cjs')}`;
        env.ARBOR_CPU_PROFILE_DIR = d;
      }
      servers.set(shape, await spawnReplica(dir, env, true));
    }
    // Rounds interleave the shapes, so a change of the machine's load hits both alike.
    for (let round = 1; round <= opts.rounds; round++) {
      for (const shape of opts.shapes) {
        const r = await measure(shape, servers.get(shape) as Replica, round);
        rounds.push(r);
        console.log(`  ${shape} round ${round} done (load ${r.load})`);
      }
    }
  } finally {
    for (const s of servers.values()) await s.kill(opts.profile ? 'SIGUSR2' : 'SIGTERM');
    await redis?.kill();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  }

  console.log(section('victim latency, alone vs during the flood (ms)'));
  const rows = rounds.map((r) => {
    const alone = Math.max(r.before.victim.p99, r.after.victim.p99);
    const n = (s: number) => [...r.flood].filter(([k]) => k === s).reduce((a, [, v]) => a + v, 0);
    const other = [...r.flood].filter(([k]) => k !== 200 && k !== 201 && k !== 429);
    return [
      `${r.shape} #${r.round}`,
      `${fmt(r.before.victim.p50)} / ${fmt(r.before.victim.p99)}`,
      `${fmt(r.during.victim.p50)} / ${fmt(r.during.victim.p99)}`,
      `${fmt(r.after.victim.p50)} / ${fmt(r.after.victim.p99)}`,
      ratio(r.during.victim.p99, alone),
      `${fmt(r.during.victim.n, 0)}`,
      `${r.before.victimErrors + r.during.victimErrors + r.after.victimErrors}`,
      `${fmt((n(200) + n(201)) / r.floodSecs, 0)} / ${fmt(n(429) / r.floodSecs, 0)}` +
        (other.length > 0 ? ` (+${other.map(([k, v]) => `${v}×${k}`).join(', ')})` : ''),
      `${fmt(r.before.serverCpuPerSec, 0)} / ${fmt(r.during.serverCpuPerSec, 0)}`,
      // Server CPU per answer during the flood (victim's and flood's): load-independent.
      fmt(
        (r.during.serverCpuPerSec * r.floodSecs * 1000) /
          Math.max(1, r.during.victim.n + total(r.flood)),
        0,
      ),
      r.load,
    ];
  });
  console.log(
    table(
      [
        'shape',
        'alone p50/p99',
        'during p50/p99',
        'after p50/p99',
        'p99 ratio',
        'victim n',
        'victim non-200',
        'flood ok/s / 429/s',
        'server CPU ms/s alone/during',
        'µs CPU/answer',
        'load',
      ],
      rows,
    ),
  );
  console.log('\np99 ratio = victim p99 during ÷ the larger of the two "alone" p99s.\n');
  console.log(
    verdictLines(
      'bench:flood',
      rounds.map((r) => {
        const alone = Math.max(r.before.victim.p99, r.after.victim.p99);
        const errors = r.before.victimErrors + r.during.victimErrors + r.after.victimErrors;
        return {
          target: `${r.shape} #${r.round}: victim p99 during the flood ≤ ${BOUND}× alone, all 200`,
          measured: `${fmt(r.during.victim.p99)} ms vs ${fmt(alone)} ms (${ratio(r.during.victim.p99, alone)}), ${errors} non-200`,
          pass: r.during.victim.p99 <= BOUND * alone && errors === 0,
        };
      }),
    ),
  );
};

const printProfiles = () => {
  for (const shape of opts.shapes) {
    const d = path.join(PROFILE_DIR, shape);
    for (const f of fs.existsSync(d) ? fs.readdirSync(d) : []) {
      console.log(section(`server CPU profile, ${shape} (${path.join(d, f)})`));
      console.log(renderProfile(path.join(d, f), 25));
    }
  }
};

main()
  .then(() => opts.profile && printProfiles())
  .catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
