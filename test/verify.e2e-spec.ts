import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { clientFor, exchange, toolTurn } from './support/api';
import { type Harness, startHarness } from './support/harness';

const run = promisify(execFile);
const MAIN = path.resolve(__dirname, '../apps/cli/src/main.ts');

/** `arbor <args>` as a child process in `cwd`; resolves with its exit code and output. */
const arbor = async (
  args: string[],
  env: NodeJS.ProcessEnv = {},
  cwd = path.resolve(__dirname, '..'),
): Promise<{ code: number; stdout: string; stderr: string }> => {
  const base: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent' };
  delete base.ARBOR_DATA_DIR;
  delete base.ARBOR_AUDIT_SECRET;
  try {
    // Absolute register and project paths: the CLI may run from another directory.
    const register = require.resolve('@swc-node/register');
    const project = path.resolve(__dirname, '../tsconfig.json');
    const r = await run(process.execPath, ['-r', register, MAIN, ...args], {
      cwd,
      env: { ...base, ...env, SWC_NODE_PROJECT: project, TS_NODE_PROJECT: project },
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
};

const verify = async (dataDir: string) => arbor(['verify'], { ARBOR_DATA_DIR: dataDir });

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
    const rows = db.prepare('SELECT format, chain_hash FROM events').all() as {
      format: number;
      chain_hash: Buffer | null;
    }[];
    db.close();
    expect(rows.length).toBeGreaterThan(5);
    for (const r of rows) expect([r.format, r.chain_hash?.length]).toEqual([2, 32]);
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
      // content is sealed in the file: edit a field in clear (the message's turn id)
      row.data.replace('"turnId":"', '"turnId":"x'),
      row.position,
    );
    db.close();
    const r = await verify(h.dataDir);
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('TAMPERED');
    expect(r.stdout).toMatch(new RegExp(`modified\\s+position ${row.position} `));
  });

  it('--data-dir is the directory verified; a missing one is an error and is not created', async () => {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-verify-cwd-'));
    try {
      // From another directory, with no ARBOR_DATA_DIR: the flag alone names the log.
      const ok = await arbor(['verify', '--data-dir', h.dataDir], {}, elsewhere);
      expect(ok.stdout).toMatch(/events in \d+ streams verified/);
      expect(ok.stdout).not.toMatch(/^OK: 0 events/);
      expect(fs.existsSync(path.join(elsewhere, 'data'))).toBe(false);
      const missing = path.join(elsewhere, 'no-such-dir');
      const r = await arbor(['verify', '--data-dir', missing], {}, elsewhere);
      expect([r.code, r.stdout]).toEqual([1, '']);
      expect(r.stderr).toContain(`no data directory ${missing}`);
      expect(fs.existsSync(missing)).toBe(false);
      expect(fs.existsSync(path.join(elsewhere, 'data'))).toBe(false);
      // A directory with no log in it: an error too, and nothing is created in it.
      const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-verify-empty-'));
      const e = await arbor(['verify', '--data-dir', empty], {}, elsewhere);
      expect(e.code).toBe(1);
      expect(e.stderr).toContain('no event log');
      expect(fs.readdirSync(empty)).toEqual([]);
      fs.rmSync(empty, { recursive: true });
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  }, 120_000);

  it('unknown flags and stray arguments are usage errors (exit 2) on every command', async () => {
    for (const args of [
      ['verify', '--data-dri', h.dataDir],
      ['verify', 'extra'],
      ['rebuild', '--force'],
      ['help', '--verbose'],
    ]) {
      const r = await arbor(args);
      expect([args.join(' '), r.code]).toEqual([args.join(' '), 2]);
      expect(r.stderr).toContain('arbor: usage:');
    }
    // serve goes through the launcher (bin/arbor.js), which checks its flags before it starts.
    const bin = path.resolve(__dirname, '../bin/arbor.js');
    const serve = await run(process.execPath, [bin, 'serve', '--port', '1']).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect('code' in serve ? serve.code : 0).toBe(2);
    expect(serve.stderr).toContain("Unknown option '--port'");
  }, 180_000);
});
