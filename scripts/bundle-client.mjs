/**
 * Run by an adapter package's `prepack`: puts the built `@arbor/client` into that package's
 * node_modules, where `npm pack` takes it in (`bundleDependencies`). The client is not on a
 * registry, so each adapter's tarball carries it and installs alone. `postpack` removes it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const pkg = process.cwd();
const client = path.resolve(pkg, '../client');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-client-'));
try {
  // The adapter's build has just built the client: pack it as it is.
  const out = execFileSync(
    'npm',
    ['pack', '--json', '--ignore-scripts', '--pack-destination', tmp],
    { cwd: client, encoding: 'utf8' },
  );
  const [{ filename }] = JSON.parse(out.slice(out.indexOf('[')));
  const into = path.join(pkg, 'node_modules/@arbor/client');
  fs.rmSync(into, { recursive: true, force: true });
  fs.mkdirSync(into, { recursive: true });
  execFileSync('tar', ['-xzf', path.join(tmp, filename), '-C', into, '--strip-components=1']);
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
