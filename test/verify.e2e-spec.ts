import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { clientFor, exchange, toolTurn } from './support/api';
import { type Harness, startHarness } from './support/harness';

const run = promisify(execFile);
const MAIN = path.resolve(__dirname, '../apps/cli/src/main.ts');

/** `arbor verify` as a child process; resolves with its exit code and output. */
const verify = async (dataDir: string): Promise<{ code: number; stdout: string }> => {
  try {
    const r = await run(process.execPath, ['-r', '@swc-node/register', MAIN, 'verify'], {
      cwd: path.resolve(__dirname, '..'),
      env: { ...process.env, ARBOR_DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    });
    return { code: 0, stdout: r.stdout };
  } catch (e) {
    const err = e as { code: number; stdout: string };
    return { code: err.code, stdout: err.stdout };
  }
};

describe('arbor verify on the log the server wrote', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    const c = clientFor(h, (await h.createTenant('audited')).apiKey);
    const id = await c.start({ title: 'audited' });
    const t1 = await c.turn(id, null, toolTurn('1'));
    await c.turn(id, t1.tip, exchange('2'));
    await c.checkpoint(id, 'one', t1.tip);
    await h.stop();
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('every event the server appended carries a chain link, and the log verifies', async () => {
    const db = new Database(path.join(h.dataDir, 'events.sqlite'), { readonly: true });
    const metas = db.prepare('SELECT metadata FROM events').pluck().all() as string[];
    db.close();
    expect(metas.length).toBeGreaterThan(5);
    for (const m of metas)
      expect(JSON.parse(m).chain).toMatchObject({ v: 1, hash: expect.any(String) });
    const r = await verify(h.dataDir);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^OK: \d+ events in \d+ streams verified/);
  });

  it('reports an edited event with its position and exits 4', async () => {
    const db = new Database(path.join(h.dataDir, 'events.sqlite'));
    db.exec('DROP TRIGGER events_no_update');
    const row = db
      .prepare(`SELECT position, data FROM events WHERE type = 'MessageAppended' LIMIT 1`)
      .get() as {
      position: number;
      data: string;
    };
    db.prepare('UPDATE events SET data = ? WHERE position = ?').run(
      row.data.replace('do 1', 'do 2'),
      row.position,
    );
    db.close();
    const r = await verify(h.dataDir);
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('TAMPERED');
    expect(r.stdout).toMatch(new RegExp(`modified\\s+position ${row.position} `));
  });
});
