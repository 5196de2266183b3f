/**
 * The audit loop on every real session file, through the API: import turn by turn, replay the
 * last revision and compare it with the live reads, hand out a context and reproduce it from the
 * log (same hash), export the branch, then verify the hash chain of the whole log on disk.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { REAL_FIXTURES } from '@arbor/fixtures';
import { importSessionFile, sessionFiles } from '@arbor/importers';
import { exportCommand, type Io, replayCommand } from '../apps/cli/src/commands';
import { clientFor, type Client } from './support/api';
import { type Harness, startHarness } from './support/harness';

const REAL = REAL_FIXTURES;
const MAIN = path.resolve(__dirname, '../apps/cli/src/main.ts');

describe('every real fixture: import, replay, reproduce, export, verify', () => {
  let h: Harness;
  let c: Client;
  let key: string;
  const contexts = new Map<string, string>();
  const imported: { file: string; id: string; tip: string | null; branch: string[] }[] = [];

  beforeAll(async () => {
    h = await startHarness();
    key = (await h.createTenant('audit')).apiKey;
    c = clientFor(h, key);
    for (const file of sessionFiles(REAL)) {
      const { conversations } = importSessionFile(file);
      // The session itself (its first conversation); sidechains are covered by the import suites.
      const conversation = conversations[0];
      if (!conversation || conversation.turns.length === 0) continue;
      const id = await c.start({ title: conversation.title });
      let tip: string | null = null;
      for (const turn of conversation.turns) {
        tip = (await c.turn(id, turn.parentId, turn.messages as never)).tip;
      }
      if (conversation.tip !== null && conversation.tip !== tip)
        await c.moveTip(id, conversation.tip);
      imported.push({
        file: path.basename(file),
        id,
        tip: conversation.tip ?? tip,
        branch: conversation.activeBranch,
      });
    }
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('imports every fixture file', () => {
    expect(imported.length).toBe(sessionFiles(REAL).length);
  });

  it('replays each conversation at its last revision exactly as the live reads show it', async () => {
    for (const { id, branch } of imported) {
      const live = await c.conversation(id);
      const replay = await c.replay(id, live.revision);
      expect(replay.tip).toBe(live.tip);
      expect(replay.branch.items.map((m: Record<string, unknown>) => m.id)).toEqual(
        await c.branchIds(id),
      );
      expect(replay.branch.items.map((m: Record<string, unknown>) => m.id)).toEqual(branch);
      expect(replay.tree).toEqual(await c.tree(id));
    }
  });

  it('reproduces a context handed out for each conversation, byte for byte', async () => {
    let reproduced = 0;
    for (const { id } of imported) {
      const r = await c.post(c.conv(id, '/context'), {
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        budgetTokens: 128_000,
      });
      if (r.status === 422) continue; // cannot_fit is a correct answer; nothing was handed out
      expect(r.status).toBe(200);
      const again = await c.get(c.conv(id, `/contexts/${r.body.contextId}`));
      expect(again.status).toBe(200);
      expect(again.body.match).toBe(true);
      expect(JSON.stringify(again.body.body)).toBe(JSON.stringify(r.body.body));
      contexts.set(id, r.body.contextId);
      reproduced += 1;
    }
    console.log(`reproduced ${reproduced} of ${imported.length} contexts (the rest: cannot_fit)`);
    expect(reproduced).toBeGreaterThan(imported.length / 2);
  });

  it('exports each active branch as the messages the file was on', async () => {
    for (const { id, branch } of imported) {
      const r = await c.get(c.conv(id, '/export?format=jsonl&scope=branch'));
      expect(r.status).toBe(200);
      const ids = r.text
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id);
      expect(ids).toEqual(branch);
    }
  });

  /** The CLI's own commands, in process, against this server (`--url`, `--key`). */
  const cli = async (command: typeof replayCommand, argv: string[]) => {
    let out = '';
    const io: Io = {
      env: {},
      out: (text) => void (out += text),
      err: () => undefined,
      stderr: process.stderr,
    };
    const code = await command([...argv, '--url', h.baseUrl, '--key', key], io);
    return { code, out };
  };

  it('the CLI replays, reproduces and exports each conversation as the API does', async () => {
    for (const { id } of imported) {
      const live = await c.conversation(id);
      const replay = await cli(replayCommand, [id, '--revision', String(live.revision), '--json']);
      expect(replay.code).toBe(0);
      const answer = JSON.parse(replay.out);
      expect(answer.tip).toBe(live.tip);
      expect(answer.tree).toEqual(await c.tree(id));
      const contextId = contexts.get(id);
      if (contextId !== undefined) {
        const again = await cli(replayCommand, [id, '--context', contextId, '--json']);
        expect(again.code).toBe(0);
        expect(JSON.parse(again.out).match).toBe(true);
      }
      const exported = await cli(exportCommand, [id, '--format', 'jsonl']);
      expect(exported.code).toBe(0);
      expect(exported.out).toBe((await c.get(c.conv(id, '/export?format=jsonl'))).text);
    }
  });

  it('verifies the hash chain of the whole log the server wrote', async () => {
    await h.stop();
    const run = promisify(execFile);
    const r = await run(process.execPath, ['-r', '@swc-node/register', MAIN, 'verify'], {
      cwd: path.resolve(__dirname, '..'),
      env: { ...process.env, ARBOR_DATA_DIR: h.dataDir, LOG_LEVEL: 'silent' },
    });
    expect(r.stdout).toMatch(/^OK: \d+ events in \d+ streams verified \(\d+ chained\)/);
    const [, events, , chained] =
      /^OK: (\d+) events in (\d+) streams verified \((\d+) chained\)/.exec(r.stdout) ?? [];
    expect(Number(chained)).toBe(Number(events));
    console.log(`verify over ${imported.length} imported fixtures: ${r.stdout.trim()}`);
  });
});
