/**
 * `npm pack` makes a tarball that works outside the repository: built JS and types, and it
 * loads with the packed `@arbor/client` and the installed `@openai/agents` beside it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const pack = (pkg: string, dir: string): { filename: string; files: { path: string }[] } => {
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], {
    cwd: pkg,
    encoding: 'utf8',
  });
  return (
    JSON.parse(out.slice(out.indexOf('['))) as { filename: string; files: { path: string }[] }[]
  )[0];
};

describe('@arbor/openai-agents package', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-agents-pack-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('packs, and the unpacked package loads beside @arbor/client and @openai/agents', () => {
    const root = path.resolve(__dirname, '../../..');
    const ours = pack(path.resolve(__dirname, '..'), dir);
    const paths = ours.files.map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/session.js', 'README.md']),
    );
    expect(paths.filter((p) => p.startsWith('src/') || p.includes('test/'))).toEqual([]);
    const client = pack(path.join(root, 'packages/client'), dir);

    const modules = path.join(dir, 'app/node_modules/@arbor');
    for (const [file, name] of [
      [ours.filename, 'openai-agents'],
      [client.filename, 'client'],
    ]) {
      fs.mkdirSync(path.join(modules, name), { recursive: true });
      execFileSync('tar', [
        '-xzf',
        path.join(dir, file),
        '-C',
        path.join(modules, name),
        '--strip-components=1',
      ]);
    }
    const js = fs
      .readdirSync(path.join(modules, 'openai-agents/dist'))
      .filter((f) => f.endsWith('.js'))
      .map((f) => fs.readFileSync(path.join(modules, 'openai-agents/dist', f), 'utf8'))
      .join('\n');
    expect(js).not.toMatch(/require\("\.\.\/\.\./);
    const loaded = execFileSync(
      process.execPath,
      [
        '-e',
        'const a = require("@arbor/openai-agents"); const { ArborClient } = require("@arbor/client");' +
          'const s = new a.ArborSession({ client: new ArborClient({ baseUrl: "http://x" }), sessionId: "s" });' +
          'console.log(typeof s.getItems, typeof a.arborContext, a.toArbor([{ role: "user", content: "hi" }])[0].role)',
      ],
      // @openai/agents comes from the repository's install (a peer dependency).
      {
        cwd: path.join(dir, 'app'),
        encoding: 'utf8',
        env: { ...process.env, NODE_PATH: path.join(root, 'node_modules') },
      },
    );
    expect(loaded.trim()).toBe('function function user');
  }, 300_000); // two builds and two packs on a shared 2-core machine
});
