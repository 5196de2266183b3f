/** The packages' tarball tests: `npm pack` a package and install it into an empty app. */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '../..');

export interface Packed {
  filename: string;
  files: { path: string }[];
}

// Every adapter's prepack rebuilds packages/client/dist: two packs at once (jest workers) would
// delete each other's build, so packs take a lock shared by the processes of one checkout.
const LOCK = path.join(
  os.tmpdir(),
  `arbor-pack-${createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 12)}.lock`,
);
const STALE_MS = 10 * 60_000;

const withPackLock = <T>(fn: () => T): T => {
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const age =
        Date.now() - (fs.statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > STALE_MS) fs.rmSync(LOCK, { recursive: true, force: true });
      else Atomics.wait(sleeper, 0, 0, 200);
    }
  }
  try {
    return fn();
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
};

export const pack = (pkg: string, dir: string): Packed =>
  withPackLock(() => {
    const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], {
      cwd: pkg,
      encoding: 'utf8',
    });
    return (JSON.parse(out.slice(out.indexOf('['))) as Packed[])[0];
  });

/**
 * Packs `packages/<name>` into `dir` and installs that tarball alone into an empty app folder
 * (`dir/app`) with npm, as an app outside the repository would: `@arbor/client` comes from
 * inside the tarball (bundled), the public dependencies and peers from the registry or npm's
 * local cache. `extra` are what the app itself adds (its framework's other packages, npm
 * flags). Returns the packed file list and the package's built JS (to check nothing requires a
 * path outside the package).
 */
export const installAlone = (
  name: string,
  dir: string,
  extra: string[] = [],
): { app: string; paths: string[]; js: string } => {
  const ours = pack(path.join(REPO_ROOT, 'packages', name), dir);
  const app = path.join(dir, 'app');
  fs.mkdirSync(app, { recursive: true });
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true }));
  execFileSync(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--ignore-scripts',
      path.join(dir, ours.filename),
      ...extra,
    ],
    { cwd: app, encoding: 'utf8', stdio: 'pipe' },
  );
  const dist = path.join(app, 'node_modules/@arbor', name, 'dist');
  const js = fs
    .readdirSync(dist)
    .filter((f) => f.endsWith('.js'))
    .map((f) => fs.readFileSync(path.join(dist, f), 'utf8'))
    .join('\n');
  return { app, paths: ours.files.map((f) => f.path), js };
};
