/**
 * The docs are walked by newcomers link by link: every relative link in a tracked Markdown file
 * must resolve to a file or folder of this repository (never outside it), and every `#anchor` to a
 * heading of its target, by GitHub's slug rules. The problem-code catalogue in docs/api.md must
 * list every code of the contract, so a new code cannot go undocumented.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROBLEM_CODES } from '@arbor/contract';

const ROOT = path.resolve(__dirname, '..');
const SKIP_DIRS = new Set(['node_modules', 'dist', '.git', '.out', '.tmp', 'coverage', 'data']);

const markdownFiles = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return SKIP_DIRS.has(e.name) ? [] : markdownFiles(full);
    return e.name.endsWith('.md') ? [full] : [];
  });

/** The text outside fenced code blocks, line by line (fences hold examples, not links). */
const proseLines = (text: string): string[] => {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
};

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
const anchorsOf = (text: string): Set<string> => {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (m === null) continue;
    const base = m[1]
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
};

/** Inline links and images `[x](target)` and reference definitions `[x]: target`, outside code. */
const linksOf = (text: string): string[] =>
  proseLines(text).flatMap((line) => {
    const prose = line.replace(/`[^`]*`/g, '');
    const inline = [...prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)];
    const refs = [...prose.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/g)];
    return [...inline, ...refs].map((m) => m[1]);
  });

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

describe('the documentation', () => {
  const files = markdownFiles(ROOT);
  const anchorCache = new Map<string, Set<string>>();
  const anchors = (file: string) => {
    let a = anchorCache.get(file);
    if (a === undefined) anchorCache.set(file, (a = anchorsOf(fs.readFileSync(file, 'utf8'))));
    return a;
  };

  it('is found (the walk sees the README and the docs pages)', () => {
    const names = files.map((f) => path.relative(ROOT, f));
    expect(names).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'ARCHITECTURE.md']));
  });

  it('links only to files and headings that exist, inside the repository', () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const target of linksOf(fs.readFileSync(file, 'utf8'))) {
        if (isExternal(target)) continue;
        const [rawPath, anchor] = target.split('#', 2) as [string, string | undefined];
        const where = `${path.relative(ROOT, file)} → ${target}`;
        const resolved =
          rawPath === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(rawPath));
        if (path.relative(ROOT, resolved).startsWith('..')) {
          broken.push(`${where}: outside the repository`);
          continue;
        }
        if (!fs.existsSync(resolved)) {
          broken.push(`${where}: no such file`);
          continue;
        }
        if (anchor !== undefined && resolved.endsWith('.md') && !anchors(resolved).has(anchor)) {
          broken.push(`${where}: no such heading`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('lists every problem code of the contract in the catalogue of docs/api.md', () => {
    const api = fs.readFileSync(path.join(ROOT, 'docs/api.md'), 'utf8');
    const listed = new Set(
      [...api.matchAll(/^\| `([a-z0-9_]+)` \| (\d{3}) \|/gm)].map((m) => m[1]),
    );
    const missing = Object.keys(PROBLEM_CODES).filter((code) => !listed.has(code));
    const unknown = [...listed].filter((code) => !(code in PROBLEM_CODES));
    expect({ missing, unknown }).toEqual({ missing: [], unknown: [] });
  });

  it('gives each code the status the contract gives it', () => {
    const api = fs.readFileSync(path.join(ROOT, 'docs/api.md'), 'utf8');
    const wrong = [...api.matchAll(/^\| `([a-z0-9_]+)` \| (\d{3}) \|/gm)]
      .filter(([, code, status]) => {
        const entry = (PROBLEM_CODES as Record<string, { status: number }>)[code];
        return entry !== undefined && entry.status !== Number(status);
      })
      .map(([, code, status]) => `${code}: ${status}`);
    expect(wrong).toEqual([]);
  });
});
