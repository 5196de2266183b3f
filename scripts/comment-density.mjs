#!/usr/bin/env node
// Comment lines / non-blank lines over libs/**/*.ts, tests and test support left out.
// Usage: node scripts/comment-density.mjs [--by-file] [root=libs]
import fs from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const byFile = args.includes('--by-file');
const root = args.find((a) => !a.startsWith('--')) ?? 'libs';

const files = [];
const walk = (dir) => {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && e.name !== 'testing') walk(p);
    } else if (p.endsWith('.ts') && !/\.(spec|e2e-spec|d)\.ts$/.test(p)) files.push(p);
  }
};
walk(root);

/** Lines that are only comment (a line with code and a trailing comment counts as code). */
const count = (text) => {
  let comment = 0;
  let lines = 0;
  let inBlock = false;
  for (const raw of text.split('\n')) {
    const l = raw.trim();
    if (l === '') continue;
    lines++;
    if (inBlock) {
      comment++;
      if (l.includes('*/')) inBlock = false;
    } else if (l.startsWith('//')) comment++;
    else if (l.startsWith('/*')) {
      comment++;
      if (!l.includes('*/', 2)) inBlock = true;
    }
  }
  return { comment, lines };
};

let comment = 0;
let lines = 0;
const rows = [];
for (const f of files) {
  const c = count(fs.readFileSync(f, 'utf8'));
  comment += c.comment;
  lines += c.lines;
  rows.push([f, c.comment, c.lines]);
}
if (byFile) {
  rows.sort((a, b) => b[1] - a[1]);
  for (const [f, c, n] of rows)
    console.log(`${String(c).padStart(5)} ${String(n).padStart(6)}  ${f}`);
}
console.log(
  `${root}: ${comment} comment lines / ${lines} non-blank lines = ${((100 * comment) / lines).toFixed(1)} % (${files.length} files)`,
);
