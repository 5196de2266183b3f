/**
 * The page font: Ubuntu Mono (regular), shipped by the `@fontsource/ubuntu-mono` npm package as
 * per-script WOFF2 subsets. Registered from node_modules by absolute path, once, at load time;
 * the subsets are listed in order so a character missing from Latin falls through to the next.
 * Characters none of them has (CJK, emoji) come from whatever fonts the machine has installed.
 */
import * as path from 'node:path';
import { GlobalFonts } from '@napi-rs/canvas';

const SUBSETS = ['latin', 'latin-ext', 'cyrillic', 'cyrillic-ext', 'greek', 'greek-ext'] as const;
const PACKAGE = '@fontsource/ubuntu-mono';

export interface RegisteredFont {
  /** The CSS font-family list to put in `ctx.font`. */
  family: string;
  files: string[];
}

function fontDir(): string {
  return path.join(path.dirname(require.resolve(`${PACKAGE}/package.json`)), 'files');
}

function register(): RegisteredFont {
  const dir = fontDir();
  const names: string[] = [];
  const files: string[] = [];
  for (const subset of SUBSETS) {
    const file = path.join(dir, `ubuntu-mono-${subset}-400-normal.woff2`);
    const alias = `ArborSnapshotMono-${subset}`;
    if (!GlobalFonts.has(alias) && GlobalFonts.registerFromPath(file, alias) === null)
      throw new Error(`cannot register snapshot font ${file}`);
    names.push(`"${alias}"`);
    files.push(file);
  }
  return { family: names.join(', '), files };
}

export const SNAPSHOT_FONT: RegisteredFont = register();
