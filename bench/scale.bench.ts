/**
 * The scaled shape against the embedded one, side by side in one run on this machine:
 *
 *   embedded: one `arbor serve` (SQLite log + SQLite read models, its own projector);
 *   scaled:   two `arbor serve --projector off` replicas + N `arbor project` workers on the same
 *             SQLite log file, read models in a redis-server the bench starts on a free port.
 *
 *   npm run bench:scale -- [--seconds 10] [--clients 32] [--workers 1,2] [--messages 100000]
 *                          [--sse 200] [--profile]
 *
 * Per shape: turn commits/s and p50/p99 at `--clients` concurrent clients (each its own
 * conversation, chaining from its last tip; every commit a new turn id of this run, and only a
 * 201 that is not `replayed` counts — anything else is an error, counted); reads/s of
 * `GET …/messages?last=20` (on the replica that did NOT write); CPU per commit summed over every
 * process of the shape (utime + stime from /proc/<pid>/stat, redis-server included), which does
 * not depend on how loaded the machine is; the SSE latency from a commit's request to its
 * TurnCommitted frame on a stream (`--sse` sequential commits on one conversation, one stream
 * open). Then Redis memory per stored message: `INFO memory` used_memory before and after
 * projecting `--messages` messages, next to the stored messages' JSON bytes.
 *
 * `--profile`: every replica and worker runs the V8 CPU profiler (bench/lib/cpu-profile-preload.cjs,
 * into bench/.out/scale-profiles/), stopped with SIGUSR2 so the profile is written; the top frames
 * are printed at the end.
 *
 * Processes run the TypeScript sources through @swc-node/register in both shapes (compiled once
 * at start; the measured windows exclude start-up and a 2 s warm-up).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from 'redis';
import { assistant, exchange, msg, text, toolResult, toolUse, user } from '../test/support/api';
import { ADMIN_KEY } from '../test/support/harness';
import {
  call,
  type Proc,
  scaledEnv,
  spawnReplica,
  spawnWorker,
  startRedisServer,
} from '../test/support/scaled';
import { openSse } from '../test/support/sse';
import { renderProfile } from './lib/cpuprofile';
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
} from './lib/report';

const args = process.argv.slice(2);
const opts = {
  seconds: numberFlag(args, 'seconds', 10),
  clients: numberFlag(args, 'clients', 32),
  workers: (flagValue(args, 'workers') ?? '1')
    .split(',')
    .map((w) => Number(w))
    .filter((w) => Number.isInteger(w) && w > 0),
  messages: numberFlag(args, 'messages', 100_000),
  sse: numberFlag(args, 'sse', 200),
  profile: hasFlag(args, 'profile'),
  memoryOnly: hasFlag(args, 'memory-only'),
};
if (opts.workers.length === 0) throw new Error('--workers takes counts like 1 or 1,2');
/** Every turn id of this run starts with it: nothing can be a replay of an earlier run. */
const RUN = randomBytes(4).toString('hex');
const ROOT = path.resolve(__dirname, '..');
const PROFILE_DIR = path.join(ROOT, 'bench', '.out', 'scale-profiles');

const TICK_MS = 1000 / 100; // USER_HZ on Linux
const firstErrors: string[] = [];
const noteError = (text: string) => {
  if (firstErrors.length < 3) firstErrors.push(text);
};

const cpuMs = (pid: number): number => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
};
const cpuOf = (pids: number[]) => pids.reduce((s, p) => s + cpuMs(p), 0);
const loadLine = () => {
  const [l1, l5] = os.loadavg();
  return `${fmt(l1, 2)} / ${fmt(l5, 2)}`;
};

interface Sse {
  label: string;
  n: number;
  fromRequest: { p50: number; p99: number };
  afterAnswer: { p50: number; p99: number };
  note: string | null;
}

interface ShapeResult {
  name: string;
  commits: number;
  commitsPerSec: number;
  p50: number;
  p99: number;
  commitErrors: number;
  replays: number;
  readsPerSec: number;
  readP99: number;
  readErrors: number;
  cpuMsPerCommit: number;
  load: string;
  sse: Sse;
}

interface Shape {
  /** Commits go to writers[i % n], reads of the same conversation to readers[i % n]. */
  writers: string[];
  readers: string[];
  pids: number[];
  /** Where the stream is opened and where its commits go. */
  sse: { stream: string; commit: string; label: string };
}

/** `clients` loops for `seconds`: each commits fresh turns on its own conversation. */
const commitLoad = async (
  shape: Shape,
  key: string,
  convs: string[],
  tips: Map<string, string | null>,
  seconds: number,
  phase: string,
) => {
  const latencies: number[] = [];
  let errors = 0;
  let replays = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    convs.map(async (conv, i) => {
      const base = shape.writers[i % shape.writers.length];
      for (let n = 0; Date.now() < end; n++) {
        const t0 = performance.now();
        const a = await call(base, 'POST', `/v1/conversations/${conv}/turns`, key, {
          turnId: `${RUN}-${phase}-${conv}-${n}`,
          expectedTip: tips.get(conv) ?? null,
          messages: exchange(`${conv}-${n} ${'x'.repeat(400)}`),
        }).catch((e: unknown) => ({ status: 0, text: String(e), body: null }));
        const ms = performance.now() - t0;
        if (a.status !== 201 || a.body?.replayed !== false) {
          if (a.body?.replayed === true) replays++;
          errors++;
          noteError(`commit ${a.status} ${a.text.slice(0, 300)}`);
          // A conflict means our tip is stale: read the tip again before the next commit.
          const tree = await call(base, 'GET', `/v1/conversations/${conv}`, key).catch(() => null);
          if (tree?.status === 200) tips.set(conv, tree.body.tip as string | null);
          continue;
        }
        latencies.push(ms);
        tips.set(conv, a.body.tip as string);
      }
    }),
  );
  return { latencies, errors, replays };
};

const readLoad = async (shape: Shape, key: string, convs: string[], seconds: number) => {
  const latencies: number[] = [];
  let errors = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    convs.map(async (conv, i) => {
      const base = shape.readers[i % shape.readers.length];
      while (Date.now() < end) {
        const t0 = performance.now();
        const a = await call(base, 'GET', `/v1/conversations/${conv}/messages?last=20`, key).catch(
          (e: unknown) => ({ status: 0, text: String(e), body: null }),
        );
        if (a.status !== 200 || !Array.isArray(a.body?.items)) {
          errors++;
          noteError(`read ${a.status} ${a.text.slice(0, 300)}`);
        } else latencies.push(performance.now() - t0);
      }
    }),
  );
  return { latencies, errors };
};

/**
 * `n` sequential commits on one conversation with a stream open: from each commit's request to
 * its TurnCommitted frame (and from its 201 to the frame). No frame within 5 s: not delivered.
 */
const sseLatency = async (shape: Shape, key: string): Promise<Sse> => {
  const { stream, commit, label } = shape.sse;
  const conv = `sse-${RUN}`;
  await call(commit, 'POST', '/v1/conversations', key, { id: conv });
  const s = await openSse(stream, `/v1/conversations/${conv}/stream`, key);
  const fromRequest: number[] = [];
  const afterAnswer: number[] = [];
  let note: string | null = s.status === 200 ? null : `stream answered ${s.status}`;
  let tip: string | null = null;
  try {
    for (let i = 0; i < opts.sse && note === null; i++) {
      const t0 = performance.now();
      const body = { turnId: `${RUN}-sse-${i}`, expectedTip: tip, messages: exchange(`sse ${i}`) };
      // A keep-alive socket the server closed while we waited: send the same turn id again.
      let a = await call(commit, 'POST', `/v1/conversations/${conv}/turns`, key, body).catch(
        () => null,
      );
      if (a === null) {
        a = await call(commit, 'POST', `/v1/conversations/${conv}/turns`, key, body);
      }
      const tAnswer = performance.now();
      if (a.status !== 201 && a.body?.replayed !== true) {
        note = `commit answered ${a.status}`;
        break;
      }
      tip = a.body.tip as string;
      const revision = a.body.revision as number;
      try {
        await s.next((f) => {
          if (f.data === undefined) return false;
          const e = JSON.parse(f.data) as { type: string; revision: number };
          return e.type === 'TurnCommitted' && e.revision === revision;
        }, 5000);
      } catch {
        note = `no TurnCommitted frame within 5 s of a commit (after ${i} delivered)`;
        break;
      }
      const tFrame = performance.now();
      fromRequest.push(tFrame - t0);
      afterAnswer.push(tFrame - tAnswer);
    }
  } finally {
    s.close();
  }
  const r = summarize(fromRequest);
  const a = summarize(afterAnswer);
  return {
    label,
    n: fromRequest.length,
    fromRequest: { p50: r.p50, p99: r.p99 },
    afterAnswer: { p50: a.p50, p99: a.p99 },
    note,
  };
};

const measureShape = async (name: string, shape: Shape): Promise<ShapeResult> => {
  const tenant = await call(shape.writers[0], 'POST', '/v1/tenants', ADMIN_KEY, { name: 'bench' });
  const key = tenant.body.apiKey as string;
  const convs: string[] = [];
  const tips = new Map<string, string | null>();
  for (let i = 0; i < opts.clients; i++) {
    const c = `bench-${RUN}-${i}`;
    const a = await call(
      shape.writers[i % shape.writers.length],
      'POST',
      '/v1/conversations',
      key,
      {
        id: c,
      },
    );
    if (a.status !== 201) throw new Error(`create conversation: ${a.status} ${a.text}`);
    convs.push(c);
    tips.set(c, null);
  }
  // Warm-up (JIT, caches), not measured.
  await commitLoad(shape, key, convs, tips, 2, 'warm');
  const cpu0 = cpuOf(shape.pids);
  const t0 = performance.now();
  const commits = await commitLoad(shape, key, convs, tips, opts.seconds, 'run');
  const secs = (performance.now() - t0) / 1000;
  const cpu1 = cpuOf(shape.pids);
  const load = loadLine();
  const readSecs = Math.max(3, Math.floor(opts.seconds / 2));
  const reads = await readLoad(shape, key, convs, readSecs);
  const sse = await sseLatency(shape, key);
  const c = summarize(commits.latencies);
  const r = summarize(reads.latencies);
  return {
    name,
    commits: commits.latencies.length,
    commitsPerSec: commits.latencies.length / secs,
    p50: c.p50,
    p99: c.p99,
    commitErrors: commits.errors,
    replays: commits.replays,
    readsPerSec: reads.latencies.length / readSecs,
    readP99: r.p99,
    readErrors: reads.errors,
    cpuMsPerCommit: (cpu1 - cpu0) / Math.max(1, commits.latencies.length),
    load,
    sse,
  };
};

/** One turn of `n` messages: a prompt, (n - 2) / 2 tool rounds, the final answer. */
const toolLoop = (label: string, n: number) => {
  const rounds = Array.from({ length: (n - 2) / 2 }, (_, j) => {
    const id = `tu_${label}_${j}`;
    return [
      msg('assistant', [text(`step ${j} of ${label}: calling a tool`), toolUse(id, 'run')]),
      msg('user', [toolResult(id, `result ${j} of ${label}, of ordinary length`)]),
    ];
  }).flat();
  return [
    user(`task ${label}, a prompt of ordinary length`),
    ...rounds,
    assistant(`done ${label}`),
  ];
};

const usedMemory = (info: string): number => Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);

const profileEnv = (label: string): Record<string, string> => {
  if (!opts.profile) return {};
  const dir = path.join(PROFILE_DIR, label);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  // `--cpu-prof` is refused in NODE_OPTIONS: the preload starts the profiler (node:inspector).
  const preload = path.join(ROOT, 'bench', 'lib', 'cpu-profile-preload.cjs');
  return { NODE_OPTIONS: `-r ${preload}`, ARBOR_CPU_PROFILE_DIR: dir };
};

/**
 * Stops a process: SIGUSR2 when profiled (it exits normally, so the profile is written),
 * SIGTERM otherwise; SIGKILL if it has not gone after 15 s.
 */
const stop = async (p: Proc): Promise<void> => {
  const late = setTimeout(() => void p.kill('SIGKILL'), 15_000);
  try {
    await p.kill(opts.profile ? 'SIGUSR2' : 'SIGTERM');
  } finally {
    clearTimeout(late);
  }
};

const main = async () => {
  console.log(
    `# bench:scale — embedded vs 2 replicas + ${opts.workers.join(' / ')} worker(s) + Redis (run ${RUN})`,
  );
  console.log(machineLine());
  console.log(
    `clients ${opts.clients}, ${opts.seconds} s of commits per shape (+2 s warm-up), reads for ${Math.max(3, Math.floor(opts.seconds / 2))} s, ${opts.sse} sequential commits for the SSE latency, ${opts.messages} messages for Redis memory${opts.profile ? ', --cpu-prof on every replica and worker' : ''}`,
  );
  const procs: Proc[] = [];
  const dirs: string[] = [];
  const tmp = (label: string) => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), `arbor-scale-${label}-`));
    dirs.push(d);
    return d;
  };
  const redis = await startRedisServer();
  const redisPid = Number(/process_id:(\d+)/.exec(redis.cli('info', 'server'))?.[1]);
  const results: ShapeResult[] = [];
  try {
    // Embedded: one process, SQLite read models, its own projector.
    if (!opts.memoryOnly) {
      const emb = await spawnReplica(
        tmp('embedded'),
        {
          REDIS_URL: '',
          LOG_LEVEL: 'error',
          ARBOR_SQLITE_SYNCHRONOUS: 'FULL',
          ...profileEnv('embedded'),
        },
        true,
      );
      procs.push(emb);
      results.push(
        await measureShape('embedded (1 process)', {
          writers: [emb.url],
          readers: [emb.url],
          pids: [emb.child.pid as number],
          sse: {
            stream: emb.url,
            commit: emb.url,
            label: 'embedded: commit and stream on the one process',
          },
        }),
      );
      await stop(emb);
    }

    // Scaled: two projector-off replicas + N workers on one log file and one Redis.
    let last: { r1: string; r2: string; prefix: string } | null = null;
    for (const n of opts.workers) {
      const env: Record<string, string> = {
        ...scaledEnv(redis.url),
        LOG_LEVEL: 'error',
        ARBOR_SQLITE_SYNCHRONOUS: 'FULL',
        ARBOR_LEASE_MS: '5000',
      };
      const dir = tmp(`scaled-${n}`);
      const shapeProcs: Proc[] = [];
      for (let i = 0; i < n; i++)
        shapeProcs.push(
          await spawnWorker(dir, { ...env, ...profileEnv(`w${n}-worker${i}`) }, `bw${i}`),
        );
      const r1 = await spawnReplica(dir, { ...env, ...profileEnv(`w${n}-replica1`) }, false);
      const r2 = await spawnReplica(dir, { ...env, ...profileEnv(`w${n}-replica2`) }, false);
      shapeProcs.push(r1, r2);
      procs.push(...shapeProcs);
      const pids = shapeProcs.map((p) => p.child.pid as number).concat(redisPid);
      if (!opts.memoryOnly)
        results.push(
          await measureShape(`2 replicas + ${n} worker(s) + Redis`, {
            writers: [r1.url, r2.url],
            readers: [r2.url, r1.url],
            pids,
            sse: {
              stream: r2.url,
              commit: r1.url,
              label: `${n} worker(s): commit on replica A, stream on replica B (both --projector off)`,
            },
          }),
        );
      if (n === opts.workers[opts.workers.length - 1]) {
        last = { r1: r1.url, r2: r2.url, prefix: env.ARBOR_REDIS_PREFIX };
      } else {
        for (const p of shapeProcs) await stop(p);
      }
    }

    if (results.length > 0) {
      console.log(section('turn commits and reads (32 clients unless --clients)'));
      const row = (s: ShapeResult) => [
        s.name,
        fmt(s.commitsPerSec, 0),
        fmt(s.p50, 1),
        fmt(s.p99, 1),
        `${s.commitErrors} (${s.replays} replays)`,
        fmt(s.readsPerSec, 0),
        fmt(s.readP99, 1),
        String(s.readErrors),
        fmt(s.cpuMsPerCommit, 2),
        s.load,
      ];
      console.log(
        table(
          [
            'shape',
            'commits/s',
            'p50 ms',
            'p99 ms',
            'commit errors',
            'reads/s',
            'read p99 ms',
            'read errors',
            'CPU ms/commit (all processes)',
            'load 1/5 min',
          ],
          results.map(row),
        ),
      );
      const embedded = results[0];
      for (const scaled of results.slice(1)) {
        console.log(
          `ratios ${scaled.name} / embedded: commits/s ${ratio(scaled.commitsPerSec, embedded.commitsPerSec)}, p99 ${ratio(scaled.p99, embedded.p99)}, reads/s ${ratio(scaled.readsPerSec, embedded.readsPerSec)}, CPU per commit ${ratio(scaled.cpuMsPerCommit, embedded.cpuMsPerCommit)}`,
        );
      }
      const best = results.reduce((a, b) => (b.commitsPerSec > a.commitsPerSec ? b : a));
      const pass = best.commitsPerSec >= 2000 && best.p99 < 50;
      console.log(
        `${pass ? 'PASS' : 'MISS'}  bench:scale: ≥ 2,000 commits/s with p99 < 50 ms at ${opts.clients} clients in the best shape — measured ${fmt(best.commitsPerSec, 0)}/s, p99 ${fmt(best.p99, 1)} ms (${best.name})`,
      );
      for (const e of firstErrors) console.log(`first errors: ${e}`);

      console.log(section('SSE latency: commit → its TurnCommitted frame on a stream'));
      console.log(
        table(
          [
            'configuration',
            'frames',
            'from request p50 / p99 ms',
            'after the 201 p50 / p99 ms',
            'note',
          ],
          results.map((r) => [
            r.sse.label,
            String(r.sse.n),
            r.sse.n === 0
              ? '—'
              : `${fmt(r.sse.fromRequest.p50, 1)} / ${fmt(r.sse.fromRequest.p99, 1)}`,
            r.sse.n === 0
              ? '—'
              : `${fmt(r.sse.afterAnswer.p50, 1)} / ${fmt(r.sse.afterAnswer.p99, 1)}`,
            r.sse.note ?? '',
          ]),
        ),
      );
    }

    // Redis memory per stored message, on the last scaled shape (its measured run is done).
    if (last !== null) {
      console.log(section(`Redis memory per stored message (${opts.messages} messages)`));
      const client = createClient({ url: redis.url });
      await client.connect();
      const before = usedMemory(await client.info('memory'));
      const tenant = await call(last.r1, 'POST', '/v1/tenants', ADMIN_KEY, { name: 'memory' });
      const key = tenant.body.apiKey as string;
      // 200 messages per conversation, in turns of 50 (25 exchanges): the layout per message is
      // the same as with 2-message turns, and the run takes minutes, not an hour, on a loaded box.
      const perConv = 200;
      const perTurn = 50;
      const convs = Math.ceil(opts.messages / perConv);
      const lanes = Math.min(32, convs);
      const t0 = performance.now();
      let failed = 0;
      let memoryError: string | null = null;
      await Promise.all(
        Array.from({ length: lanes }, async (_, lane) => {
          for (let c = lane; c < convs; c += lanes) {
            const id = `mem-${RUN}-${c}`;
            await call(last.r2, 'POST', '/v1/conversations', key, { id });
            let tip: string | null = null;
            for (let t = 0; t < perConv / perTurn; t++) {
              const a = await call(last.r2, 'POST', `/v1/conversations/${id}/turns`, key, {
                turnId: `${RUN}-mem-${c}-${t}`,
                expectedTip: tip,
                messages: toolLoop(`${c}-${t}`, perTurn),
              });
              if (a.status !== 201) {
                failed++;
                if (memoryError === null) memoryError = `${a.status} ${a.text.slice(0, 300)}`;
                break;
              }
              tip = a.body.tip as string;
            }
          }
        }),
      );
      const writeSecs = (performance.now() - t0) / 1000;
      // Projected when every conversation's bodies hash holds its messages.
      const expected = convs * perConv;
      let stored = 0;
      let bodyBytes = 0;
      const deadline = Date.now() + 10 * 60_000;
      for (;;) {
        stored = 0;
        bodyBytes = 0;
        for await (const keys of client.scanIterator({
          MATCH: `${last.prefix}:*:{*:mem-${RUN}-*}:bodies`,
          COUNT: 1000,
        })) {
          for (const k of keys) {
            const values = await client.hVals(k);
            stored += values.length;
            for (const v of values) bodyBytes += Buffer.byteLength(v);
          }
        }
        if (stored >= expected - failed * perConv || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      const after = usedMemory(await client.info('memory'));
      await client.quit();
      const perMessage = (after - before) / Math.max(1, stored);
      console.log(
        `written in ${fmt(writeSecs, 1)} s (${fmt(expected / writeSecs, 0)} messages/s over HTTP in turns of ${perTurn}, ${lanes} clients), ${failed} failed turns; load ${loadLine()}`,
      );
      if (memoryError !== null) console.log(`first failed turn: ${memoryError}`);
      console.log(
        table(
          [
            'messages stored',
            'used_memory Δ',
            'bytes / message',
            'message JSON bytes / message',
            'overhead ×',
          ],
          [
            [
              String(stored),
              `${fmt((after - before) / 1024 / 1024, 1)} MiB`,
              fmt(perMessage, 0),
              fmt(bodyBytes / Math.max(1, stored), 0),
              ratio(perMessage, bodyBytes / Math.max(1, stored)),
            ],
          ],
        ),
      );
      console.log(
        '(the Δ is every key of the Redis layout for those conversations: bodies, metas, the order zset, the branch list, conversation rows and the tenant list; measured after the commit runs above)',
      );
    }
  } finally {
    for (const p of procs) await stop(p).catch(() => undefined);
    await redis.kill();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  }
  if (opts.profile) {
    console.log(
      section(`CPU profiles (self time; files under ${path.relative(ROOT, PROFILE_DIR)})`),
    );
    for (const label of fs.readdirSync(PROFILE_DIR).sort()) {
      for (const f of fs.readdirSync(path.join(PROFILE_DIR, label))) {
        if (!f.endsWith('.cpuprofile')) continue;
        const file = path.join(PROFILE_DIR, label, f);
        if (fs.statSync(file).size < 1000) continue;
        console.log(`\n### ${label} (${f})\n`);
        console.log(renderProfile(file, 15));
      }
    }
  }
};

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
