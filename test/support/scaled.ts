/**
 * The scaled shape as real processes: a redis-server of its own (free port, nothing on disk),
 * `arbor serve` replicas (apps/api main) and `arbor project` workers (apps/cli main), all on one
 * SQLite log directory and one Redis.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { ADMIN_KEY } from './harness';
import { httpCall } from './http';

const ROOT = path.resolve(__dirname, '..', '..');

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

export const redisServerInstalled = (): boolean =>
  spawnSync('redis-server', ['--version'], { timeout: 5000 }).status === 0;

export const SCALED_SKIP_REASON =
  'SKIPPED: no redis-server binary on PATH, so the scaled-shape process suite (replicas, workers, Redis faults) was NOT run. Install redis-server; ARBOR_REQUIRE_ALL=1 turns this skip into a failure.';

export const describeWithRedisServer = (name: string, body: () => void): void => {
  if (redisServerInstalled()) {
    describe(name, body);
    return;
  }
  console.warn(SCALED_SKIP_REASON);
  describe(name, () => {
    if (process.env.ARBOR_REQUIRE_ALL === '1')
      it('requires redis-server (ARBOR_REQUIRE_ALL=1)', () => {
        throw new Error(SCALED_SKIP_REASON);
      });
    else it.skip(SCALED_SKIP_REASON, () => undefined);
  });
};

export interface RedisServer {
  port: number;
  url: string;
  /** SIGKILL (Redis unreachable; with --save "" it comes back empty). */
  kill(): Promise<void>;
  /** Starts again on the same port, empty. */
  start(): Promise<void>;
  cli(...args: string[]): string;
}

export const startRedisServer = async (): Promise<RedisServer> => {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const cli = (...args: string[]) =>
    spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8', timeout: 10_000 })
      .stdout;
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    for (let i = 0; i < 100; i++) {
      if (cli('ping').trim() === 'PONG') return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server did not start on ${port}`);
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    cli,
    start,
    kill: async () => {
      const c = child;
      if (c === null || c.exitCode !== null) return;
      const gone = new Promise<void>((r) => c.once('exit', () => r()));
      c.kill('SIGKILL');
      await gone;
      child = null;
    },
  };
};

export interface Proc {
  child: ChildProcess;
  name: string;
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

const spawnProc = async (
  name: string,
  args: string[],
  env: Record<string, string>,
  ready: string,
): Promise<Proc> => {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ARBOR_ADMIN_KEY: ADMIN_KEY, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${out}`)), 90_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes(ready)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code}):\n${out}`));
    });
  });
  return {
    child,
    name,
    output: () => out,
    kill: async (signal = 'SIGKILL') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill(signal);
      await gone;
    },
  };
};

export interface Replica extends Proc {
  url: string;
}

/** `arbor serve` (the compiled bin runs the same main); `projector: false` = `--projector off`. */
export const spawnReplica = async (
  dataDir: string,
  env: Record<string, string>,
  projector: boolean,
): Promise<Replica> => {
  const port = await freePort();
  const p = await spawnProc(
    `replica:${port}`,
    ['apps/api/src/main.ts'],
    {
      ARBOR_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      ARBOR_PROJECTOR: projector ? 'on' : 'off',
      ...env,
    },
    'arbor listening',
  );
  return { ...p, url: `http://127.0.0.1:${port}` };
};

/** `arbor project`. */
export const spawnWorker = (dataDir: string, env: Record<string, string>, id: string) =>
  spawnProc(
    `worker:${id}`,
    ['apps/cli/src/main.ts', 'project'],
    { ARBOR_DATA_DIR: dataDir, ARBOR_WORKER_ID: id, ...env },
    'arbor project: worker',
  );

/**
 * The scaled shape as the README starts it: one `arbor project` worker (id `w1`) and two
 * `serve --projector off` replicas over `dataDir`, started one after another (a loaded 2-core
 * machine compiles each with swc on start). Every process is pushed to `procs` as it starts, so
 * an `afterAll` that kills `procs` also stops those a later failure left behind.
 */
export const spawnShape = async (
  dataDir: string,
  env: Record<string, string>,
  procs: Proc[],
): Promise<{ worker: Proc; a: Replica; b: Replica }> => {
  const worker = await spawnWorker(dataDir, env, 'w1');
  procs.push(worker);
  const a = await spawnReplica(dataDir, env, false);
  procs.push(a);
  const b = await spawnReplica(dataDir, env, false);
  procs.push(b);
  return { worker, a, b };
};

export const scaledEnv = (redisUrl: string): Record<string, string> => ({
  REDIS_URL: redisUrl,
  ARBOR_REDIS_PREFIX: `arbor-test:scaled:${randomBytes(4).toString('hex')}`,
  ARBOR_LEASE_MS: '1500',
  ARBOR_PARTITIONS: '4',
  ARBOR_READ_TIMEOUT_MS: '5000',
  ARBOR_SQLITE_SYNCHRONOUS: 'NORMAL',
});

/**
 * The same for a Redis Cluster: `REDIS_CLUSTER_URLS` the masters' URLs, `REDIS_URL` emptied (the
 * two are exclusive, and the caller's shell may have one set).
 */
export const clusterEnv = (urls: readonly string[]): Record<string, string> => ({
  ...scaledEnv(''),
  REDIS_URL: '',
  REDIS_CLUSTER_URLS: urls.join(','),
  ARBOR_REDIS_PREFIX: `arbor-test:cluster:${randomBytes(4).toString('hex')}`,
});

export interface Answer {
  status: number;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test helper: JSON of any shape
  body: any;
}

/** `httpCall` positionally, unchecked (replicas mid-fault), with `null` for an empty body. */
export const call = async (
  base: string,
  method: string,
  route: string,
  key: string,
  body?: unknown,
  timeoutMs = 15_000,
): Promise<Answer> => {
  const r = await httpCall(base, method, route, { key, body, timeoutMs, check: false });
  return { status: r.status, text: r.text, body: r.body ?? null };
};
