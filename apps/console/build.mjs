// Builds the operator console into dist/console (run by `npm run build`), or into
// ARBOR_CONSOLE_DIR when set (the browser tests build their own copy): one esbuild bundle of
// src/main.tsx (Preact), plus index.html and styles.css copied as they are.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = process.env.ARBOR_CONSOLE_DIR
  ? path.resolve(process.env.ARBOR_CONSOLE_DIR)
  : path.resolve(here, '..', '..', 'dist', 'console');
fs.mkdirSync(out, { recursive: true });
const started = Date.now();
await build({
  entryPoints: [path.join(here, 'src', 'main.tsx')],
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  // No source map in what is served: it would publish the sources (and they are not needed to run).
  sourcemap: false,
  outfile: path.join(out, 'app.js'),
  tsconfig: path.join(here, 'tsconfig.json'),
  jsx: 'automatic',
  jsxImportSource: 'preact',
  logLevel: 'warning',
});
fs.rmSync(path.join(out, 'app.js.map'), { force: true });
for (const f of ['index.html', 'styles.css'])
  fs.copyFileSync(path.join(here, f), path.join(out, f));
console.log(
  `console built into ${path.relative(process.cwd(), out)} in ${Date.now() - started} ms`,
);
