/** The packages' tarball tests: `npm pack` a package and install it into an empty app. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '../..');

export interface Packed {
  filename: string;
  files: { path: string }[];
}

export const pack = (pkg: string, dir: string): Packed => {
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], {
    cwd: pkg,
    encoding: 'utf8',
  });
  return (JSON.parse(out.slice(out.indexOf('['))) as Packed[])[0];
};

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
