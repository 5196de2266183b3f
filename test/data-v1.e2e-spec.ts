/**
 * A data directory written by format v1 of the server (test/fixtures/data-v1): this build opens
 * it, answers exactly what that build answered (events, branch, replay), verifies its hash chain,
 * and keeps writing to it, so rows of both formats live in one log and still verify.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { clientFor, exchange } from './support/api';
import { type Harness, startHarness } from './support/harness';

const run = promisify(execFile);
const FIXTURE = path.resolve(__dirname, 'fixtures/data-v1');
const MAIN = path.resolve(__dirname, '../apps/cli/src/main.ts');

interface Expected {
  apiKey: string;
  conversationId: string;
  revision: number;
  tip: string;
  branch: unknown[];
  events: unknown[];
  replay: unknown;
}

const expected = JSON.parse(
  fs.readFileSync(path.join(FIXTURE, 'expected.json'), 'utf8'),
) as Expected;

/** `arbor verify --data-dir <dir>` as a child process: its exit code and output. */
const verifyCli = async (dataDir: string): Promise<{ code: number; stdout: string }> => {
  const project = path.resolve(__dirname, '../tsconfig.json');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LOG_LEVEL: 'silent',
    SWC_NODE_PROJECT: project,
    TS_NODE_PROJECT: project,
  };
  delete env.ARBOR_DATA_DIR;
  delete env.ARBOR_AUDIT_SECRET;
  delete env.ARBOR_MASTER_KEY;
  try {
    const args = [
      '-r',
      require.resolve('@swc-node/register'),
      MAIN,
      'verify',
      '--data-dir',
      dataDir,
    ];
    const r = await run(process.execPath, args, { env });
    return { code: 0, stdout: r.stdout };
  } catch (e) {
    const err = e as { code: number; stdout: string };
    return { code: err.code, stdout: err.stdout };
  }
};

/** Byte-exact: the same JSON text, key order included. */
const sameBytes = (actual: unknown, wanted: unknown) =>
  expect(JSON.stringify(actual, null, 1)).toBe(JSON.stringify(wanted, null, 1));

describe('a data directory written by format v1', () => {
  let dataDir: string;
  let h: Harness;
  const id = expected.conversationId;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-data-v1-'));
    fs.cpSync(path.join(FIXTURE, 'files'), dataDir, { recursive: true });
    h = await startHarness({ ARBOR_DATA_DIR: dataDir });
  });
  afterAll(async () => {
    await h.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers its events, branch and replay exactly as the build that wrote it did', async () => {
    const c = clientFor(h, expected.apiKey);
    const conversation = await c.conversation(id);
    expect([conversation.revision, conversation.tip]).toEqual([expected.revision, expected.tip]);
    sameBytes(await c.events(id), expected.events);
    sameBytes(await c.branch(id), expected.branch);
    sameBytes(await c.replay(id, expected.revision), expected.replay);
  });

  it('verifies, through the API and with `arbor verify`', async () => {
    const r = await h.call('GET', `/v1/conversations/${id}/verify`, { key: expected.apiKey });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, findings: [], chained: expected.events.length });
    await h.stop();
    const cli = await verifyCli(dataDir);
    expect(cli.stdout).toMatch(/^OK: \d+ events in \d+ streams verified/);
    expect(cli.code).toBe(0);
    await h.restart();
  }, 120_000);

  it('takes new turns after its last event; the old and new rows verify as one chain', async () => {
    const c = clientFor(h, expected.apiKey);
    const turn = await c.turn(id, expected.tip, exchange('after v1'));
    const events = await c.events(id);
    sameBytes(events.slice(0, expected.events.length), expected.events);
    expect(events.length).toBeGreaterThan(expected.events.length);
    expect((await c.branch(id)).map((m) => m.id).at(-1)).toBe(turn.tip);
    // Replay at the old revision is unchanged by what came after.
    sameBytes(await c.replay(id, expected.revision), expected.replay);
    const r = await h.call('GET', `/v1/conversations/${id}/verify`, { key: expected.apiKey });
    expect(r.body).toMatchObject({ ok: true, findings: [], chained: events.length });
    await h.stop();
    const cli = await verifyCli(dataDir);
    expect(cli.stdout).toMatch(/^OK: \d+ events in \d+ streams verified/);
    expect(cli.code).toBe(0);
    await h.restart();
  }, 120_000);
});
