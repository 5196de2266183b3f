/**
 * The `arbor` CLI's import, export, tree and replay, on the real fixtures:
 * - every real session file imports into a fresh embedded store (the API's command path, in
 *   process) and round-trips through `export --format jsonl`: the exported active branch is the
 *   importer's, message for message, and Claude Code branch points are the importer's;
 * - the same commands against a running server (`--url/--key`) print exactly what they print
 *   embedded;
 * - the CLI as a child process imports, draws the tree and exports one fixture.
 * It logs the import rate (messages/s) on the largest fixture; it asserts no speed.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { type Message } from '@arbor/domain';
import { REAL_FIXTURES } from '@arbor/fixtures';
import { importSessionFile, sessionFiles } from '@arbor/importers';
import { createApp } from '../apps/api/src/bootstrap';
import { readConfig } from '@arbor/application';
import { ArborClient as ArborHttpClient } from '@arbor/client';
import { createEmbeddedClient } from '../apps/cli/src/client/embedded';
import { type ArborClient } from '../apps/cli/src/client/types';
import { exportCommand, type Io, replayCommand, treeCommand } from '../apps/cli/src/commands';
import { runImport } from '../apps/cli/src/import';

const REAL = REAL_FIXTURES;
const FILES = sessionFiles(REAL);
const ADMIN_KEY = 'cli-test-admin-key-0123456789';
const IDEAS = FILES.find((f) => path.basename(f).startsWith('experiments-ideas__')) as string;

const baseEnv = (dataDir: string): NodeJS.ProcessEnv => ({
  ARBOR_DATA_DIR: dataDir,
  ARBOR_ADMIN_KEY: ADMIN_KEY,
  LOG_LEVEL: 'silent',
  ARBOR_SQLITE_SYNCHRONOUS: 'NORMAL',
});

const silentProgress = () => ({ update: () => undefined, finish: () => undefined });

/** Runs a command function with captured output. */
const capture = async (
  command: (argv: string[], io: Io) => Promise<number>,
  argv: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; out: string; err: string }> => {
  let out = '';
  let err = '';
  const io: Io = {
    env,
    out: (t) => void (out += t),
    err: (t) => void (err += `${t}\n`),
    stderr: process.stderr,
  };
  const code = await command(argv, io);
  return { code, out, err };
};

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-cli-'));

describe('arbor import → export, embedded, every real fixture', () => {
  let dataDir: string;
  let client: ArborClient;
  beforeAll(async () => {
    dataDir = tmp();
    client = await createEmbeddedClient({ config: readConfig(baseEnv(dataDir)) });
  });
  afterAll(async () => {
    await client.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('finds the fixtures', () => expect(FILES.length).toBe(16));

  it.each(FILES.map((f) => [path.relative(REAL, f), f]))('%s', async (_, file) => {
    const expected = importSessionFile(file).conversations;
    const summary = await runImport(file, { client, concurrency: 2, progress: silentProgress });
    expect(summary.failures).toEqual([]);
    expect(summary.conversations.map((c) => c.kind)).toEqual(expected.map((c) => c.kind));
    for (const [i, ref] of summary.conversations.entries()) {
      const c = expected[i];
      const sent = new Map(c.turns.flatMap((t) => t.messages).map((m) => [m.id, m]));
      // Export, then read the jsonl back: the active branch, then the whole tree.
      const branch = (await client.exportText(ref.id, 'jsonl', 'branch'))
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Message);
      expect(branch.map((m) => m.id)).toEqual(c.activeBranch);
      for (const m of branch) expect(m.content).toEqual(sent.get(m.id)?.content);
      const all = (await client.exportText(ref.id, 'jsonl', 'tree')).split('\n').filter(Boolean);
      expect(all).toHaveLength(sent.size);
      const tree = await client.tree(ref.id);
      expect(tree.tip).toBe(c.tip);
      expect([...tree.branchPoints].sort()).toEqual([...c.branchPoints].sort());
      expect(tree.checkpoints.map((x) => [x.label, x.messageId])).toEqual(
        c.checkpoints.map((x) => [x.label, x.messageId]),
      );
    }
    const largest = [...FILES].sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
    if (file === largest) {
      const secs = summary.commitMs / 1000;
      console.log(
        `import rate on the largest fixture ${path.basename(file)} ` +
          `(${(fs.statSync(file).size / 1e6).toFixed(1)} MB): ${summary.messages} messages, ` +
          `${summary.turns} turns in ${secs.toFixed(2)} s = ${Math.round(summary.messages / secs)} messages/s ` +
          `(embedded, one conversation, turns in order; read+convert ${(summary.readMs / 1000).toFixed(2)} s)`,
      );
    }
  });

  it('a second import of a file resumes into the same conversation: every turn a replay', async () => {
    const again = await runImport(IDEAS, { client, concurrency: 1, progress: silentProgress });
    expect(again.conversations).toHaveLength(1);
    expect(again.conversations[0].resumed).toBe(true);
    expect(again.replayedTurns).toBe(again.turns);
    const info = await client.conversation(again.conversations[0].id);
    expect(info.counts.messages).toBe(again.messages);
  });
});

describe('arbor export, tree and replay print the same embedded and over HTTP', () => {
  let dataDir: string;
  let id: string;
  let tenantId: string;
  let contextId: string;
  const outputs = new Map<string, string>();
  const commands: [string, (argv: string[], io: Io) => Promise<number>, string[]][] = [];

  /** The real server on the data directory, with a key of the tenant the CLI created. */
  const withServer = async (work: (url: string, key: string) => Promise<void>) => {
    const app = await createApp(readConfig(baseEnv(dataDir)));
    try {
      await app.listen(0, '127.0.0.1');
      const address = app.getHttpServer().address();
      if (address === null || typeof address === 'string') throw new Error('no address');
      const url = `http://127.0.0.1:${address.port}`;
      const admin = new ArborHttpClient({ baseUrl: url, apiKey: ADMIN_KEY });
      const { apiKey } = await admin.call('issueKey', {
        path: { tenantId },
        body: { label: 'cli test' },
      });
      await work(url, apiKey);
    } finally {
      await app.close();
    }
  };

  beforeAll(async () => {
    dataDir = tmp();
    const client = await createEmbeddedClient({
      config: readConfig(baseEnv(dataDir)),
      onTenantCreated: (t) => (tenantId = t),
    });
    const summary = await runImport(IDEAS, { client, concurrency: 1, progress: silentProgress });
    id = summary.conversations[0].id;
    // A checkpoint and a tip move, so the tree and replay have more to show.
    await client.setCheckpoint(id, 'first-answer', '3220c04b-b0dc-48b5-845b-3c1c10f6a684');
    await client.moveTip(id, '95b483e6-74a7-4c50-b3c8-705944edf7ae');
    await client.close();
    // A context handed out (only the API assembles them), to reproduce.
    await withServer(async (url, key) => {
      const arbor = new ArborHttpClient({ baseUrl: url, apiKey: key });
      const context = await arbor.context(id, {
        provider: 'anthropic',
        model: 'claude-x',
        budgetTokens: 100000,
      });
      contextId = context.contextId;
    });
    commands.push(
      ['export jsonl', exportCommand, [id]],
      ['export jsonl branch', exportCommand, [id, '--scope', 'branch']],
      ['export markdown', exportCommand, [id, '--format', 'markdown']],
      ['export html', exportCommand, [id, '--format', 'html']],
      ['export claude-code', exportCommand, [id, '--format', 'claude-code']],
      ['export pi', exportCommand, [id, '--format', 'pi']],
      ['tree', treeCommand, [id]],
      ['tree expanded', treeCommand, [id, '--expand', '--full-ids']],
      ['replay 10', replayCommand, [id, '--revision', '10']],
      ['replay 10 json', replayCommand, [id, '--revision', '10', '--json']],
      ['replay 26', replayCommand, [id, '--revision', '26']],
      ['replay context', replayCommand, [id, '--context', contextId]],
    );
    for (const [name, command, argv] of commands) {
      const r = await capture(command, argv, baseEnv(dataDir));
      expect({ name, code: r.code }).toEqual({ name, code: 0 });
      outputs.set(name, r.out);
    }
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('prints what it should embedded', () => {
    const tree = outputs.get('tree') as string;
    expect(tree).toContain('⑂ 2');
    expect(tree).toContain('[first-answer]');
    expect(tree).toMatch(/95b483e6… .*◀ tip/);
    expect(outputs.get('replay 10')).toContain(`${id} as of revision 10`);
    const replay = JSON.parse(outputs.get('replay 10 json') as string) as { revision: number };
    expect(replay.revision).toBe(10);
    expect(outputs.get('replay 26')).toContain(
      'first-answer → 3220c04b-b0dc-48b5-845b-3c1c10f6a684 (active)',
    );
    expect(outputs.get('replay context')).toContain('MATCH: the reproduced body is byte for byte');
    const html = outputs.get('export html') as string;
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script|<link|src="http|href="http/);
  });

  it('prints the same through a running server with --url and --key', async () => {
    await withServer(async (url, key) => {
      for (const [name, command, argv] of commands) {
        const r = await capture(command, [...argv, '--url', url, '--key', key], {});
        expect({ name, code: r.code }).toEqual({ name, code: 0 });
        expect({ name, out: r.out }).toEqual({ name, out: outputs.get(name) });
      }
    });
  });

  it('says loudly, with exit code 3, when a context does not reproduce', async () => {
    // Tamper with the recorded receipt (the log refuses updates: drop its guard first).
    const db = new Database(path.join(dataDir, 'events.sqlite'));
    db.exec('DROP TRIGGER IF EXISTS events_no_update');
    const changed = db
      .prepare(
        "UPDATE events SET data = json_set(data, '$.bodyHash', ?) WHERE type = 'ContextAssembled'",
      )
      .run('0'.repeat(64)).changes;
    db.close();
    expect(changed).toBe(1);
    const r = await capture(replayCommand, [id, '--context', contextId], baseEnv(dataDir));
    expect(r.code).toBe(3);
    expect(r.out).toContain('MISMATCH');
    expect(r.out).toContain(`recorded hash:   ${'0'.repeat(64)}`);
    expect(r.err).toContain(`context ${contextId} does NOT reproduce`);
    await expect(
      capture(replayCommand, [id, '--context', 'no-such-context'], baseEnv(dataDir)),
    ).rejects.toMatchObject({ code: 'context_not_found' });
  });
});

describe('arbor as a child process', () => {
  const run = promisify(execFile);
  const MAIN = path.resolve(__dirname, '../apps/cli/src/main.ts');
  const arbor = (args: string[], env: NodeJS.ProcessEnv) =>
    run(process.execPath, ['-r', '@swc-node/register', MAIN, ...args], {
      cwd: path.resolve(__dirname, '..'),
      env: { ...process.env, ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
  let dataDir: string;
  beforeAll(() => (dataDir = tmp()));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('imports a fixture, draws its tree and exports it', async () => {
    const env = baseEnv(dataDir);
    const imported = await arbor(['import', IDEAS], env);
    expect(imported.stdout).toMatch(
      /imported 1 file\(s\) → 1 conversation\(s\) \(1 main\), 7 turns, 18 messages/,
    );
    expect(imported.stdout).toContain('not in a finished turn');
    expect(imported.stderr).toContain('created the local tenant');
    const id = /(imp-[0-9a-f]+-0)/.exec(imported.stdout)?.[1] as string;
    const tree = await arbor(['tree', id], env);
    expect(tree.stdout).toContain('⑂ 2');
    expect(tree.stdout).toMatch(/18037c5a… .*◀ tip/);
    const out = path.join(dataDir, 'export.md');
    await arbor(['export', id, '--format', 'markdown', '--output', out], env);
    expect(fs.readFileSync(out, 'utf8')).toContain(
      '## assistant · `18037c5a-b000-42c9-a689-06fa14b1300d`',
    );
    const jsonl = await arbor(['export', id], env);
    expect(jsonl.stdout.trim().split('\n')).toHaveLength(18);
    // Again, with the line-by-line report: a resumed import, nothing duplicated.
    const report = path.join(dataDir, 'report.json');
    const again = await arbor(['import', IDEAS, '--verbose', '--report', report], env);
    expect(again.stdout).toContain('7 turns were already there (a resumed import): replayed');
    expect(again.stdout).toMatch(
      /experiments-ideas__[^:]+:\d+ {2}file-history-snapshot record without uuid/,
    );
    const [fileReport] = JSON.parse(fs.readFileSync(report, 'utf8')) as {
      format: string;
      messages: number;
      skipped: { line: number; reason: string }[];
    }[];
    expect(fileReport).toMatchObject({ format: 'claude-code', messages: 18 });
    expect(fileReport.skipped.length).toBeGreaterThan(0);
    expect((await arbor(['export', id], env)).stdout.trim().split('\n')).toHaveLength(18);
  });

  it('answers usage errors with exit code 2 and unknown conversations with their code', async () => {
    const env = baseEnv(dataDir);
    await expect(arbor(['export'], env)).rejects.toMatchObject({ code: 2 });
    await expect(arbor(['tree', 'nope'], env)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('conversation_not_found'),
    });
    await expect(
      arbor(['tree', 'x', '--url', 'http://127.0.0.1:9'], { ARBOR_API_KEY: '' }),
    ).rejects.toMatchObject({ code: 2 });
  });
});
