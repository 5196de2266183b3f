/**
 * `npm pack` makes a tarball that installs alone: into an empty folder, with `@arbor/client`
 * inside it (bundled) and `@anthropic-ai/claude-agent-sdk` (the peer) from the registry or npm's
 * cache, it runs the README's quick start against a real Arbor server.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Harness, startHarness } from '../../../test/support/harness';
import { installAlone, REPO_ROOT } from '../../../test/support/pack';

// The quick start, as an app outside the repository would run it (CommonJS; the SDK is ESM and
// loads through require on Node ≥ 20.19).
const QUICK_START = `
const { importSessionToStore, getSessionMessages } = require('@anthropic-ai/claude-agent-sdk');
const { ArborClient, ArborSessionStore } = require('@arbor/claude-agent-sdk');
const [baseUrl, apiKey, dir, sessionId] = process.argv.slice(2);
(async () => {
  const sessionStore = new ArborSessionStore({ client: new ArborClient({ baseUrl, apiKey }) });
  await importSessionToStore(sessionId, sessionStore, { dir });
  const projectKey = dir.replace(/[^A-Za-z0-9]/g, '-');
  const entries = await sessionStore.load({ projectKey, sessionId });
  const messages = await getSessionMessages(sessionId, { dir, sessionStore });
  console.log(entries.length, messages.length > 0);
})().catch((e) => { console.error(e); process.exit(1); });
`;

describe('@arbor/claude-agent-sdk package', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-claude-pack-'));
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('installs alone from its tarball and runs the quick start', async () => {
    // Without optional dependencies: the SDK's native Claude Code binary (~400 MB) is not what
    // the quick start uses.
    const { app, paths, js } = installAlone('claude-agent-sdk', dir, ['--omit=optional']);
    expect(paths).toEqual(
      expect.arrayContaining([
        'dist/index.js',
        'dist/index.d.ts',
        'dist/store.js',
        'README.md',
        'node_modules/@arbor/client/dist/index.js',
      ]),
    );
    expect(fs.existsSync(path.join(app, 'node_modules/@arbor/client'))).toBe(false);
    expect(paths.filter((p) => p.startsWith('src/') || p.includes('test/'))).toEqual([]);
    const manifest = JSON.parse(
      fs.readFileSync(path.resolve(__dirname, '../package.json'), 'utf8'),
    ) as { peerDependencies: Record<string, string>; bundleDependencies: string[] };
    expect(Object.keys(manifest.peerDependencies)).toEqual(['@anthropic-ai/claude-agent-sdk']);
    expect(manifest.bundleDependencies).toEqual(['@arbor/client']);
    expect(js).not.toMatch(/require\("\.\.\/\.\./);

    // A Claude Code session on disk, where the SDK looks for it.
    const config = path.join(dir, 'claude');
    const project = '/work/pack-quick-start';
    const sessionId = '03eb5929-52b3-4b13-ada3-b93ae35806b8';
    const projectDir = path.join(config, 'projects', project.replace(/[^A-Za-z0-9]/g, '-'));
    fs.mkdirSync(projectDir, { recursive: true });
    const fixture = path.join(
      REPO_ROOT,
      `test/fixtures/real/claude-code/experiments-ideas__${sessionId}.jsonl`,
    );
    fs.copyFileSync(fixture, path.join(projectDir, `${sessionId}.jsonl`));
    fs.writeFileSync(path.join(app, 'quick-start.js'), QUICK_START);

    const { apiKey } = await h.createTenant('pack');
    const out = await new Promise<string>((resolve, reject) => {
      // Asynchronous: the Arbor server answering it runs in this process.
      execFile(
        process.execPath,
        ['quick-start.js', h.baseUrl, apiKey, project, sessionId],
        {
          cwd: app,
          encoding: 'utf8',
          // The SDK comes from the repository's install (a peer dependency).
          env: { PATH: process.env.PATH, CLAUDE_CONFIG_DIR: config },
        },
        (error, stdout, stderr) =>
          error ? reject(new Error(stderr || String(error))) : resolve(stdout),
      );
    });
    const lines = fs.readFileSync(fixture, 'utf8').trim().split('\n').length;
    expect(out.trim()).toBe(`${lines} true`);
  }, 600_000); // a build, a pack and an install on a shared 2-core machine
});
