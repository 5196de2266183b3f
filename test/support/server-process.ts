import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { ADMIN_KEY } from './harness';
import { httpCall } from './http';

const ROOT = path.resolve(__dirname, '..', '..');

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** One HTTP call with a bearer key; the body parsed as JSON (null when there is none). */
  call(
    method: string,
    route: string,
    key: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> | null }>;
  /** SIGKILL, and wait for the process to be gone. */
  kill(): Promise<void>;
}

/**
 * The real server in its own OS process (what `npm start` runs) on `dataDir`. Unlike the
 * harness's in-process `restart()`, a new process shares no module state with the old one, so a
 * restart through this is a restart in the sense of docs/INVARIANTS.md.
 */
export const spawnServer = async (
  dataDir: string,
  env: Record<string, string> = {},
): Promise<ServerProcess> => {
  const port = await freePort();
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'apps/api/src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ARBOR_DATA_DIR: dataDir,
      ARBOR_ADMIN_KEY: ADMIN_KEY,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ARBOR_SQLITE_SYNCHRONOUS: 'FULL',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 90_000);
    const onData = (d: Buffer) => {
      output += d.toString();
      if (output.includes('arbor listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}):\n${output}`));
    });
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    child,
    url,
    async call(method, route, key, body) {
      const r = await httpCall(url, method, route, { key, body, timeoutMs: 15_000 });
      return { status: r.status, body: r.body ?? null };
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await gone;
    },
  };
};
