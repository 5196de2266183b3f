/**
 * `npm pack` makes a tarball that works outside the repository: built JS and types, and it
 * loads with the packed `@arbor/client` and the installed `@openai/agents` beside it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packBesideClient, REPO_ROOT } from '../../../test/support/pack';

describe('@arbor/openai-agents package', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-agents-pack-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('packs, and the unpacked package loads beside @arbor/client and @openai/agents', () => {
    const { app, paths, js } = packBesideClient('openai-agents', dir);
    expect(paths).toEqual(
      expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/session.js', 'README.md']),
    );
    expect(paths.filter((p) => p.startsWith('src/') || p.includes('test/'))).toEqual([]);
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
        cwd: app,
        encoding: 'utf8',
        env: { ...process.env, NODE_PATH: path.join(REPO_ROOT, 'node_modules') },
      },
    );
    expect(loaded.trim()).toBe('function function user');
  }, 300_000); // two builds and two packs on a shared 2-core machine
});
