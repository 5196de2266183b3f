/**
 * The scaled shape against the embedded one, side by side in one run on this machine:
 *
 *   embedded: one `arbor serve` (SQLite log + SQLite read models, its own projector);
 *   scaled:   two `arbor serve --projector off` replicas + `--workers` `arbor project` workers
 *             on the same SQLite log file, read models in a redis-server of the bench's own.
 *
 *   npm run bench:scale -- [--seconds 10] [--clients 32] [--workers 1] [--messages 20000]
 *
 * Per shape: turn commits/s and p50/p99 at `--clients` concurrent clients (each its own
 * conversation, chaining from its last tip; in the scaled shape half the clients on each replica),
 * reads/s of `GET …/messages?last=20` (reads on the replica that did NOT write), and CPU per commit
 * summed over every process of the shape (utime + stime from /proc/<pid>/stat, redis-server
 * included), which does not depend on how loaded the machine is. Then Redis memory per stored
 * message: `INFO memory` used_memory before and after projecting `--messages` messages, next to
 * the stored messages' JSON bytes (the `bodies` hashes' values).
 *
 * Processes run the TypeScript sources through @swc-node/register in both shapes (compiled once
 * at start; the measured windows exclude start-up).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from 'redis';
import { exchange } from '../test/support/api';
import { ADMIN_KEY } from '../test/support/harness';
import {
  call,
  type Proc,
  scaledEnv,
  spawnReplica,
  spawnWorker,
  startRedisServer,
} from '../test/support/scaled';
import { fmt, machineLine, numberFlag, ratio, section, summarize, table } from './lib/report';

const args = process.argv.slice(2);
const opts = {
  seconds: numberFlag(args, 'seconds', 10),
  clients: numberFlag(args, 'clients', 32),
  workers: numberFlag(args, 'workers', 1),
  messages: numberFlag(args, 'messages', 20_000),
};

const TICK_MS = 1000 / 100; // USER_HZ on Linux
let firstError: string | null = null;

const cpuMs = (pid: number): number => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
};
const cpuOf = (pids: number[]) => pids.reduce((s, p) => s + cpuMs(p), 0);

interface ShapeResult {
  commitsPerSec: number;
  p50: number;
  p99: number;
  readsPerSec: number;
  readP99: number;
  cpuMsPerCommit: number;
  errors: number;
}

/** `clients` loops for `seconds`: each commits turns on its own conversation via `bases[i % n]`. */
const tips = new Map<string, string | null>();
const commitLoad = async (
  bases: string[],
  key: string,
  convs: string[],
  seconds: number,
  phase: string,
) => {
  const latencies: number[] = [];
  let errors = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    convs.map(async (conv, i) => {
      const base = bases[i % bases.length];
      let tip: string | null = tips.get(conv) ?? null;
      for (let n = 0; Date.now() < end; n++) {
        const t0 = performance.now();
        const a = await call(base, 'POST', `/v1/conversations/${conv}/turns`, key, {
          turnId: `${phase}-${conv}-${n}`,
          expectedTip: tip,
          messages: exchange(`${conv}-${n} ${'x'.repeat(400)}`),
        }).catch((e: unknown) => ({ status: 0, text: String(e), body: null }));
        if (a.status !== 201) {
          errors++;
          if (firstError === null) firstError = `${a.status} ${a.text.slice(0, 300)}`;
          continue;
        }
        latencies.push(performance.now() - t0);
        tip = a.body.tip as string;
        tips.set(conv, tip);
      }
    }),
  );
  return { latencies, errors };
};

const readLoad = async (bases: string[], key: string, convs: string[], seconds: number) => {
  const latencies: number[] = [];
  let errors = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    convs.map(async (conv, i) => {
      // Read on the other replica than the one that wrote this conversation.
      const base = bases[(i + 1) % bases.length];
      while (Date.now() < end) {
        const t0 = performance.now();
        const a = await call(base, 'GET', `/v1/conversations/${conv}/messages?last=20`, key).catch(
          () => null,
        );
        if (a?.status !== 200) errors++;
        else latencies.push(performance.now() - t0);
      }
    }),
  );
  return { latencies, errors };
};

const measureShape = async (bases: string[], pids: number[]): Promise<ShapeResult> => {
  const tenant = await call(bases[0], 'POST', '/v1/tenants', ADMIN_KEY, { name: 'bench' });
  const key = tenant.body.apiKey as string;
  const convs: string[] = [];
  for (let i = 0; i < opts.clients; i++) {
    const c = `bench-${i}`;
    await call(bases[i % bases.length], 'POST', '/v1/conversations', key, { id: c });
    convs.push(c);
  }
  // Warm-up (JIT, caches), not measured.
  await commitLoad(bases, key, convs, 2, 'warm');
  const cpu0 = cpuOf(pids);
  const t0 = performance.now();
  const commits = await commitLoad(bases, key, convs, opts.seconds, 'run');
  const secs = (performance.now() - t0) / 1000;
  const cpu1 = cpuOf(pids);
  const reads = await readLoad(bases, key, convs, Math.max(3, Math.floor(opts.seconds / 2)));
  const c = summarize(commits.latencies);
  const r = summarize(reads.latencies);
  return {
    commitsPerSec: commits.latencies.length / secs,
    p50: c.p50,
    p99: c.p99,
    readsPerSec: reads.latencies.length / Math.max(3, Math.floor(opts.seconds / 2)),
    readP99: r.p99,
    cpuMsPerCommit: (cpu1 - cpu0) / Math.max(1, commits.latencies.length),
    errors: commits.errors + reads.errors,
  };
};

const usedMemory = (info: string): number => Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);

const main = async () => {
  console.log(`# bench:scale — embedded vs 2 replicas + ${opts.workers} worker(s) + Redis`);
  console.log(machineLine());
  console.log(
    `clients ${opts.clients}, ${opts.seconds} s of commits per shape (+2 s warm-up), reads for ${Math.max(3, Math.floor(opts.seconds / 2))} s`,
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
  try {
    // Embedded.
    const emb = await spawnReplica(tmp('embedded'), { REDIS_URL: '', LOG_LEVEL: 'error' }, true);
    procs.push(emb);
    const embedded = await measureShape([emb.url], [emb.child.pid as number]);
    await emb.kill('SIGTERM');

    // Scaled.
    const env: Record<string, string> = {
      ...scaledEnv(redis.url),
      LOG_LEVEL: 'error',
      ARBOR_SQLITE_SYNCHRONOUS: 'FULL',
    };
    const dir = tmp('scaled');
    const workers: Proc[] = [];
    for (let i = 0; i < opts.workers; i++) workers.push(await spawnWorker(dir, env, `bw${i}`));
    const r1 = await spawnReplica(dir, env, false);
    const r2 = await spawnReplica(dir, env, false);
    procs.push(...workers, r1, r2);
    const pids = [r1, r2, ...workers].map((p) => p.child.pid as number).concat(redisPid);
    const scaled = await measureShape([r1.url, r2.url], pids);

    console.log(section('turn commits and reads'));
    const row = (name: string, s: ShapeResult) => [
      name,
      fmt(s.commitsPerSec, 0),
      fmt(s.p50, 1),
      fmt(s.p99, 1),
      fmt(s.readsPerSec, 0),
      fmt(s.readP99, 1),
      fmt(s.cpuMsPerCommit, 2),
      String(s.errors),
    ];
    console.log(
      table(
        [
          'shape',
          'commits/s',
          'p50 ms',
          'p99 ms',
          'reads/s',
          'read p99 ms',
          'CPU ms/commit',
          'errors',
        ],
        [
          row('embedded (1 process)', embedded),
          row(`2 replicas + ${opts.workers} worker(s) + Redis`, scaled),
        ],
      ),
    );
    console.log(
      `ratios scaled/embedded: commits/s ${ratio(scaled.commitsPerSec, embedded.commitsPerSec)}, p99 ${ratio(scaled.p99, embedded.p99)}, reads/s ${ratio(scaled.readsPerSec, embedded.readsPerSec)}, CPU per commit ${ratio(scaled.cpuMsPerCommit, embedded.cpuMsPerCommit)}`,
    );
    if (firstError !== null) console.log(`first failed commit: ${firstError}`);
    console.log(
      'SSE latency: not measured — this branch has no GET /v1/conversations/{id}/stream route (built on another branch).',
    );

    // Redis memory per stored message.
    console.log(section(`Redis memory per stored message (${opts.messages} messages)`));
    const client = createClient({ url: redis.url });
    await client.connect();
    const before = usedMemory(await client.info('memory'));
    const tenant = await call(r1.url, 'POST', '/v1/tenants', ADMIN_KEY, { name: 'memory' });
    const key = tenant.body.apiKey as string;
    const perConv = 200;
    const convs = Math.ceil(opts.messages / perConv);
    await Promise.all(
      Array.from({ length: Math.min(16, convs) }, async (_, lane) => {
        for (let c = lane; c < convs; c += 16) {
          const id = `mem-${c}`;
          await call(r1.url, 'POST', '/v1/conversations', key, { id });
          for (let t = 0; t < perConv / 2; t++) {
            await call(r2.url, 'POST', `/v1/conversations/${id}/turns`, key, {
              messages: exchange(`${c}-${t} a message of ordinary length for an agent's turn`),
            });
          }
        }
      }),
    );
    await call(r1.url, 'GET', '/v1/conversations?limit=1', key); // waits for the projection
    const after = usedMemory(await client.info('memory'));
    let bodyBytes = 0;
    let stored = 0;
    for await (const keys of client.scanIterator({
      MATCH: `${env.ARBOR_REDIS_PREFIX}:*:mem-*:bodies`,
      COUNT: 500,
    })) {
      for (const k of keys) {
        const values = await client.hVals(k);
        stored += values.length;
        for (const v of values) bodyBytes += Buffer.byteLength(v);
      }
    }
    await client.quit();
    const perMessage = (after - before) / Math.max(1, stored);
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
      '(the Δ includes every key of the scaled layout: bodies, metas, order, branch, conversation rows, and the shape run above is excluded by measuring from its end)',
    );
  } finally {
    for (const p of procs) await p.kill().catch(() => undefined);
    await redis.kill();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  }
};

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
