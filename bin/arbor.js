#!/usr/bin/env node
// The `arbor` command. It lives outside dist/ so that `npm run build` (which empties dist/) never
// takes away its executable bit; it runs the compiled CLI, and says how to build it when missing.
// `arbor serve` starts the compiled HTTP app instead: the CLI itself never loads the HTTP edge.
'use strict';
const path = require('node:path');
const app = process.argv[2] === 'serve' ? ['api', 'src', 'main.js'] : ['cli', 'src', 'main.js'];
const main = path.join(__dirname, '..', 'dist', 'apps', ...app);
try {
  require.resolve(main);
} catch {
  process.stderr.write(
    'arbor: the CLI is not built yet; run `npm run build` (or `npm install`) first\n',
  );
  process.exit(1);
}
require(main);
