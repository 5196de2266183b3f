/**
 * A real Redis Cluster for a test: three masters (`redis-server --cluster-enabled yes`) on free
 * ports of their own (each with its cluster bus port, +10000, free as well), nothing on disk but
 * their nodes files in a temp dir of their own, joined by `redis-cli --cluster create`; killed
 * and the dir removed by `stop()`. Never touches the shared Redis.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const redisClusterToolsInstalled = (): boolean =>
  spawnSync('redis-server', ['--version'], { timeout: 5000 }).status === 0 &&
  spawnSync('redis-cli', ['--version'], { timeout: 5000 }).status === 0;

export const clusterSkipReason = (what: string): string =>
  `SKIPPED: no redis-server/redis-cli on PATH, so ${what} was NOT run. Install redis-server; ARBOR_REQUIRE_ALL=1 turns this skip into a failure.`;

/**
 * `describe` when redis-server and redis-cli are installed; otherwise one skipped test with the
 * reason (one line on the console), or a failing one under ARBOR_REQUIRE_ALL=1 (CI).
 */
export const describeWithRedisCluster = (name: string, what: string, body: () => void): void => {
  if (redisClusterToolsInstalled()) {
    describe(name, body);
    return;
  }
  const reason = clusterSkipReason(what);
  console.warn(reason);
  describe(name, () => {
    if (process.env.ARBOR_REQUIRE_ALL === '1')
      it('requires redis-server (ARBOR_REQUIRE_ALL=1)', () => {
        throw new Error(reason);
      });
    else it.skip(reason, () => undefined);
  });
};

const portFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });

/** A port p with p + 10000 (the cluster bus) free as well. */
const clusterPort = async (taken: Set<number>): Promise<number> => {
  for (;;) {
    const p = 20000 + Math.floor(Math.random() * 30000);
    if (taken.has(p) || taken.has(p + 10000)) continue;
    if ((await portFree(p)) && (await portFree(p + 10000))) {
      taken.add(p);
      taken.add(p + 10000);
      return p;
    }
  }
};

export interface RedisClusterServers {
  /** The masters' ports. */
  ports: number[];
  /** `redis://127.0.0.1:<port>` of every master (what REDIS_CLUSTER_URLS lists). */
  urls: string[];
  /** redis-cli against one node (stdout). */
  cli(port: number, ...args: string[]): string;
  stop(): Promise<void>;
}

export const startRedisCluster = async (masters = 3): Promise<RedisClusterServers> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-cluster-'));
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  const cli = (port: number, ...args: string[]) =>
    spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8', timeout: 30_000 })
      .stdout ?? '';
  const stop = async () => {
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            c.once('exit', () => resolve());
            c.kill('SIGKILL');
          }),
      ),
    );
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const taken = new Set<number>();
    for (let i = 0; i < masters; i++) ports.push(await clusterPort(taken));
    for (const port of ports) {
      children.push(
        spawn(
          'redis-server',
          [
            '--port',
            String(port),
            '--bind',
            '127.0.0.1',
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            path.join(dir, `nodes-${port}.conf`),
            '--dir',
            dir,
            '--save',
            '',
            '--appendonly',
            'no',
          ],
          { stdio: 'ignore' },
        ),
      );
    }
    for (const port of ports) {
      for (let i = 0; i < 100 && cli(port, 'ping').trim() !== 'PONG'; i++)
        await new Promise((r) => setTimeout(r, 50));
    }
    const created = spawnSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...ports.map((p) => `127.0.0.1:${p}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    if (created.status !== 0) throw new Error(`cluster create: ${created.stdout}${created.stderr}`);
    let ok = false;
    for (let i = 0; i < 200 && !ok; i++) {
      ok = ports.every((p) => cli(p, 'cluster', 'info').includes('cluster_state:ok'));
      if (!ok) await new Promise((r) => setTimeout(r, 100));
    }
    if (!ok) throw new Error('the cluster did not reach cluster_state:ok');
  } catch (e) {
    await stop();
    throw e;
  }
  return { ports, urls: ports.map((p) => `redis://127.0.0.1:${p}`), cli, stop };
};
