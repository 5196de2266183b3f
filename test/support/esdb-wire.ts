/**
 * The EventStoreDB wire server (libs/event-store/src/esdb/testing/) as a process of its own, for
 * the scaled shape over EventStoreDB's gRPC wire. A test double of EventStoreDB, not the server.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

export interface WireServerProcess {
  connectionString: string;
  output(): string;
  kill(): Promise<void>;
}

export const startWireServerProcess = async (): Promise<WireServerProcess> => {
  const child = spawn(
    process.execPath,
    ['-r', '@swc-node/register', 'libs/event-store/src/esdb/testing/wire-server-main.ts'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  const connectionString = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`wire server did not start:\n${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening: (esdb:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`wire server exited (${code}):\n${out}`));
    });
  });
  return {
    connectionString,
    output: () => out,
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGKILL');
      await gone;
    },
  };
};
