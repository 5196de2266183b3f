#!/usr/bin/env node
// The `arbor` command. It lives outside dist/ so that `npm run build` (which empties dist/) never
// takes away its executable bit; it runs the compiled CLI, and says how to build it when missing.
// `arbor serve` starts the compiled HTTP app instead: the CLI itself never loads the HTTP edge.
'use strict';
const path = require('node:path');
const app = process.argv[2] === 'serve' ? ['api', 'src', 'main.js'] : ['cli', 'src', 'main.js'];
const main = path.join(__dirname, '..', 'dist', 'apps', ...app);
if (process.argv[2] === 'serve') {
  // serve takes --data-dir (over ARBOR_DATA_DIR) and --projector on|off (over ARBOR_PROJECTOR); anything else is a usage error, as in the
  // CLI's other commands.
  const { parseArgs } = require('node:util');
  try {
    const { values } = parseArgs({
      args: process.argv.slice(3),
      options: { 'data-dir': { type: 'string' }, projector: { type: 'string' } },
      allowPositionals: false,
      strict: true,
    });
    if (values['data-dir'] === '') throw new Error('--data-dir must name a directory');
    if (values['data-dir'] !== undefined) process.env.ARBOR_DATA_DIR = values['data-dir'];
    if (values.projector !== undefined) {
      if (values.projector !== 'on' && values.projector !== 'off')
        throw new Error('--projector must be on or off');
      process.env.ARBOR_PROJECTOR = values.projector;
    }
  } catch (e) {
    process.stderr.write(
      `arbor: usage: ${e.message}\n  arbor serve [--data-dir <dir>] [--projector on|off]\n`,
    );
    process.exit(2);
  }
}
try {
  require.resolve(main);
} catch {
  process.stderr.write(
    'arbor: the CLI is not built yet; run `npm run build` (or `npm install`) first\n',
  );
  process.exit(1);
}
require(main);
