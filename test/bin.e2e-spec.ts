/**
 * The `arbor` command as the README has users run it: after `npm run build` (which empties
 * dist/), `npx arbor --help` and `npx arbor import <a real fixture>` work from the repository.
 * The bin is a committed launcher (bin/arbor.js) with its executable bit in git, so a build can
 * never take it away; this test fails if the launcher, the build or the CLI cannot start.
 * A build newer than every source (what `npm ci` leaves, its `prepare` builds) is used as it is:
 * building again costs the run a minute of tsc and proves nothing more.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { REAL_FIXTURES } from '@arbor/fixtures';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..');

/** The newest modification time of what the build reads (sources, configs, package.json). */
const newestSource = (): number => {
  let newest = 0;
  const visit = (p: string) => {
    const st = fs.statSync(p);
    if (st.isDirectory()) {
      for (const e of fs.readdirSync(p))
        if (e !== 'node_modules' && e !== 'dist') visit(path.join(p, e));
    } else newest = Math.max(newest, st.mtimeMs);
  };
  for (const d of ['apps', 'libs', 'packages']) visit(path.join(ROOT, d));
  for (const f of fs.readdirSync(ROOT))
    if (/^tsconfig.*\.json$|^package(-lock)?\.json$/.test(f)) visit(path.join(ROOT, f));
  return newest;
};

/** When the last complete build ended: its last step writes the console bundle (0: none). */
const builtAt = (): number => {
  try {
    return fs.statSync(path.join(ROOT, 'dist/console/app.js')).mtimeMs;
  } catch {
    return 0;
  }
};
const FIXTURE = path.join(
  REAL_FIXTURES,
  'claude-code',
  'experiments-ideas__03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl',
);

describe('the arbor bin after a build', () => {
  let dataDir: string;
  // npx keeps state in npm's cache; a cache of its own keeps concurrent npx runs (other suites,
  // other checkouts) from racing on it.
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-bin-'));
    env = {
      ...process.env,
      ARBOR_DATA_DIR: undefined,
      npm_config_cache: path.join(dataDir, '.npm'),
    };
    if (builtAt() <= newestSource())
      await run('npm', ['run', 'build'], { cwd: ROOT, timeout: 240_000 });
    expect(builtAt()).toBeGreaterThan(newestSource());
  }, 300_000);
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('the bin named in package.json is an executable file tracked with its mode', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    const bin = path.join(ROOT, pkg.bin.arbor);
    expect(fs.statSync(bin).mode & 0o111).not.toBe(0);
  });

  it('npx arbor --help prints the usage', async () => {
    const { stdout } = await run('npx', ['--no-install', 'arbor', '--help'], {
      cwd: ROOT,
      timeout: 120_000,
      env,
    });
    expect(stdout).toContain('usage:');
    expect(stdout).toContain('arbor import');
  }, 200_000);

  it('npx arbor import <fixture> imports into the given data directory', async () => {
    const { stdout } = await run(
      'npx',
      ['--no-install', 'arbor', 'import', FIXTURE, '--data-dir', dataDir],
      { cwd: ROOT, timeout: 180_000, env },
    );
    expect(stdout).toMatch(/1 conversation/);
    expect(fs.readdirSync(dataDir).some((f) => f.endsWith('.sqlite'))).toBe(true);
  }, 200_000);
});
