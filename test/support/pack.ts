/**
 * The packages' tarball tests: `npm pack` a package and `@arbor/client`, unpack both into an
 * empty app folder's node_modules, as an app outside the repository would have them.
 */
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
 * Packs `packages/<name>` and the client into `dir`, unpacks both under `dir/app/node_modules`,
 * and returns the package's packed file list and its built JS (to check nothing requires a path
 * outside the package).
 */
export const packBesideClient = (
  name: string,
  dir: string,
): { app: string; paths: string[]; js: string } => {
  const ours = pack(path.join(REPO_ROOT, 'packages', name), dir);
  const client = pack(path.join(REPO_ROOT, 'packages/client'), dir);
  const app = path.join(dir, 'app');
  const modules = path.join(app, 'node_modules/@arbor');
  for (const [file, into] of [
    [ours.filename, name],
    [client.filename, 'client'],
  ]) {
    fs.mkdirSync(path.join(modules, into), { recursive: true });
    execFileSync('tar', [
      '-xzf',
      path.join(dir, file),
      '-C',
      path.join(modules, into),
      '--strip-components=1',
    ]);
  }
  const dist = path.join(modules, name, 'dist');
  const js = fs
    .readdirSync(dist)
    .filter((f) => f.endsWith('.js'))
    .map((f) => fs.readFileSync(path.join(dist, f), 'utf8'))
    .join('\n');
  return { app, paths: ours.files.map((f) => f.path), js };
};
