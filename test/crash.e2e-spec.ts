import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ReadModelsService } from '../apps/api/src/conversations/read-models.service';
import { clientFor, exchange, type MessageIn, toolTurn } from './support/api';
import { ADMIN_KEY, type Harness, startHarness } from './support/harness';
import { checkWholeTurns, readLog } from './support/log';
import { settle } from './support/workload';

const ROOT = path.resolve(__dirname, '..');

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

/** The real server in its own process (what `npm start` runs), on `dataDir`. */
const spawnServer = async (dataDir: string): Promise<{ child: ChildProcess; url: string }> => {
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
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
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
  return { child, url: `http://127.0.0.1:${port}` };
};

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));

interface Sent {
  conversation: string;
  turnId: string;
  parentId: string | null;
  messages: MessageIn[];
  acked?: { messageIds: string[]; tip: string };
}

/**
 * SPEC §5.2: kill -9 the server while clients commit turns; after a restart every acknowledged
 * turn is there (its retry is a replay), no half-turn is in the log, and the read models the
 * projector resumed equal a rebuild from the log (§5.8).
 */
describe('kill -9 under load', () => {
  let dataDir: string;
  let h: Harness | null = null;
  let child: ChildProcess | null = null;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-crash-'));
  });
  afterAll(async () => {
    if (child) {
      child.kill('SIGKILL');
      await exited(child);
    }
    await h?.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('loses no acknowledged turn and leaves no half-turn', async () => {
    const server = await spawnServer(dataDir);
    child = server.child;
    const call = async (method: string, url: string, key: string, body?: unknown) => {
      const res = await fetch(server.url + url, {
        signal: AbortSignal.timeout(15_000),
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const tenant = (await call('POST', '/v1/tenants', ADMIN_KEY, {})).body as { apiKey: string };
    const key = tenant.apiKey;
    const conversations: string[] = [];
    for (let i = 0; i < 4; i++)
      conversations.push((await call('POST', '/v1/conversations', key, {})).body.id as string);

    const sent: Sent[] = [];
    let acked = 0;
    let dead = false;
    let running = conversations.length;
    const errors: string[] = [];
    const worker = async (conversation: string, w: number) => {
      let tip: string | null = null;
      for (let i = 0; !dead; i++) {
        const s: Sent = {
          conversation,
          turnId: `w${w}-t${i}`,
          parentId: tip,
          messages: i % 2 ? toolTurn(`w${w}t${i}`, 2) : exchange(`w${w}t${i}`),
        };
        sent.push(s);
        try {
          const r = await call('POST', `/v1/conversations/${conversation}/turns`, key, {
            turnId: s.turnId,
            parentId: s.parentId,
            messages: s.messages,
          });
          if (r.status !== 201) {
            errors.push(`${s.turnId}: ${r.status} ${JSON.stringify(r.body)}`);
            return;
          }
          s.acked = r.body as Sent['acked'];
          tip = (r.body as { tip: string }).tip;
          acked++;
        } catch (e) {
          if (!dead) errors.push(`${s.turnId}: ${String(e)}`);
          return; // the server is gone (or hangs: reported above)
        }
      }
    };
    const workers = conversations.map((c, w) => worker(c, w).finally(() => running--));
    while (acked < 60 && running > 0) await new Promise((r) => setTimeout(r, 5));
    expect(errors).toEqual([]);
    child.kill('SIGKILL');
    dead = true;
    await Promise.all(workers);
    await exited(child);

    // The log on disk: whole turns only.
    const rows = readLog(dataDir);
    const { turns, problems } = checkWholeTurns(rows);
    expect(problems).toEqual([]);
    const ackedTurns = sent.filter((s) => s.acked);
    expect(ackedTurns.length).toBeGreaterThanOrEqual(60);
    expect(turns).toBeGreaterThanOrEqual(ackedTurns.length);

    // Restarted on the same files: every acknowledged turn is there, its retry a replay.
    h = await startHarness({ ARBOR_DATA_DIR: dataDir });
    const c = clientFor(h, key);
    for (const s of ackedTurns) {
      const r = await c.post(c.conv(s.conversation, '/turns'), {
        turnId: s.turnId,
        parentId: s.parentId,
        messages: s.messages,
      });
      expect({ turnId: s.turnId, status: r.status, body: r.body }).toEqual({
        turnId: s.turnId,
        status: 200,
        body: { ...s.acked, turnId: s.turnId, revision: expect.any(Number), replayed: true },
      });
    }
    // Each conversation's branch is whole turns, and holds at least what was acknowledged.
    for (const conversation of conversations) {
      const branch = await c.branchIds(conversation);
      const mine = ackedTurns.filter((s) => s.conversation === conversation);
      const ids = mine.flatMap((s) => s.acked?.messageIds ?? []);
      expect(branch.slice(0, ids.length)).toEqual(ids);
      const committed = sent.filter((s) => s.conversation === conversation);
      expect(branch.length).toBeLessThanOrEqual(
        committed.reduce((n, s) => n + s.messages.length, 0),
      );
    }
    // The projector resumed after the crash: its read models equal a rebuild from the log.
    await settle(h);
    const resumed = h.app.get(ReadModelsService).dump();
    const r = await h.call('POST', '/v1/admin/projections/rebuild', { key: ADMIN_KEY });
    expect(r.status).toBe(200);
    expect(h.app.get(ReadModelsService).dump()).toBe(resumed);
  });
});
