#!/usr/bin/env node
// The `arbor` command. It lives outside dist/ so that `npm run build` (which empties dist/) never
// takes away its executable bit; it runs the compiled CLI, and says how to build it when missing.
'use strict';
const path = require('node:path');
const main = path.join(__dirname, '..', 'dist', 'apps', 'cli', 'src', 'main.js');
try {
  require.resolve(main);
} catch {
  process.stderr.write(
    'arbor: the CLI is not built yet; run `npm run build` (or `npm install`) first\n',
  );
  process.exit(1);
}
require(main);
