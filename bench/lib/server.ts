/**
 * The real server as a child process: built once into bench/.out/build (so a bench never races
 * another `npm run build` over dist/), started on a data directory, measured through /proc.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');
export const OUT = path.join(ROOT, 'bench', '.out');
export const ADMIN_KEY = 'bench-admin-key-0123456789';
const BUILD = path.join(OUT, 'build');
const MAIN = path.join(BUILD, 'apps', 'api', 'src', 'main.js');

/** Compiles the app as `npm run build` does, into bench/.out/build. Returns the entry point. */
export const buildServer = (options: { skip?: boolean } = {}): string => {
  if (options.skip && fs.existsSync(MAIN)) return MAIN;
  fs.rmSync(BUILD, { recursive: true, force: true });
  const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);
  const args = ['-p', 'tsconfig.build.json', '--outDir', BUILD];
  execFileSync(bin('tsc'), args, { cwd: ROOT, stdio: 'inherit' });
  execFileSync(bin('tsc-alias'), args, { cwd: ROOT, stdio: 'inherit' });
  return MAIN;
};

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });

export interface ProcMemory {
  /** Resident set size now, KiB. */
  rssKiB: number;
  /** Peak resident set size so far (VmHWM), KiB. */
  peakKiB: number;
}

export const readProcMemory = (pid: number): ProcMemory => {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { rssKiB: field('VmRSS'), peakKiB: field('VmHWM') };
};

/** CPU time (user + system) the process has used so far, milliseconds. */
export const readProcCpuMs = (pid: number): number => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of /proc/<pid>/stat, in clock ticks (USER_HZ = 100).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};

export interface ServerHandle {
  pid: number;
  baseUrl: string;
  dataDir: string;
  memory(): ProcMemory;
  cpuMs(): number;
  /** SIGTERM (or `signal`), then waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface StartOptions {
  main: string;
  dataDir: string;
  env?: Record<string, string>;
  /** Extra node flags, e.g. --cpu-prof. */
  nodeArgs?: string[];
  /** How long to wait for "listening" (a big data dir catches its projections up first). */
  startTimeoutMs?: number;
}

const waitForListening = (child: ChildProcess, timeoutMs: number): Promise<void> =>
  new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`server not up after ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('arbor listening')) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening:\n${out}`));
    });
  });

/** Starts `node <main>` with PORT/ARBOR_DATA_DIR/ARBOR_ADMIN_KEY set and waits until it listens. */
export const startServer = async (options: StartOptions): Promise<ServerHandle> => {
  const port = await freePort();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.main], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      ARBOR_DATA_DIR: options.dataDir,
      ARBOR_ADMIN_KEY: ADMIN_KEY,
      LOG_LEVEL: 'silent',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitForListening(child, options.startTimeoutMs ?? 120_000);
  const pid = child.pid as number;
  return {
    pid,
    baseUrl: `http://127.0.0.1:${port}`,
    dataDir: options.dataDir,
    memory: () => readProcMemory(pid),
    cpuMs: () => readProcCpuMs(pid),
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
};
