/** `npm pack` makes a tarball that works on its own: built JS and types, nothing of the server. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pack } from '../../../test/support/pack';

describe('@arbor/client package', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-client-pack-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('packs, and the unpacked package loads without the repository', () => {
    const pkg = path.resolve(__dirname, '..');
    const { filename, files } = pack(pkg, dir);
    const paths = files.map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'README.md']),
    );
    expect(paths.filter((p) => p.startsWith('src/') || p.includes('test/'))).toEqual([]);

    execFileSync('tar', ['-xzf', path.join(dir, filename), '-C', dir]);
    // Installed as a user's project would have it: the package and its declared dependencies.
    const manifest = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    for (const dep of Object.keys(manifest.dependencies ?? {})) {
      fs.cpSync(
        path.dirname(require.resolve(`${dep}/package.json`)),
        path.join(dir, 'node_modules', dep),
        { recursive: true },
      );
    }
    const js = fs
      .readdirSync(path.join(dir, 'package/dist'))
      .filter((f) => f.endsWith('.js'))
      .map((f) => fs.readFileSync(path.join(dir, 'package/dist', f), 'utf8'))
      .join('\n');
    expect(js).not.toMatch(/require\("(@arbor\/|\.\.\/\.\.)/);
    // Every bare require is a declared dependency (node builtins aside).
    const bare = [...js.matchAll(/require\("([^."][^"]*)"\)/g)].map((m) => m[1]);
    for (const m of bare) expect(Object.keys(manifest.dependencies ?? {})).toContain(m);
    const loaded = execFileSync(
      process.execPath,
      [
        '-e',
        'const c = require(process.argv[1]); const a = new c.ArborClient({ baseUrl: "http://x" });' +
          'console.log(typeof a.call, c.operationRoutes.commitTurn.path)',
        path.join(dir, 'package'),
      ],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(loaded.trim()).toBe('function /v1/conversations/{id}/turns');
  });
});
