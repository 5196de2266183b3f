/** Ubuntu Mono's subsets in order, so a character missing from Latin falls through to the next. */
import * as path from 'node:path';
import { GlobalFonts } from '@napi-rs/canvas';

const SUBSETS = ['latin', 'latin-ext', 'cyrillic', 'cyrillic-ext', 'greek', 'greek-ext'] as const;
const PACKAGE = '@fontsource/ubuntu-mono';

export interface RegisteredFont {
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
