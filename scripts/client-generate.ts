/**
 * `npm run client:generate`: writes packages/client/src/openapi.ts (see client-types.ts).
 * With `--stdout` it prints the fresh generation instead (the staleness test compares it).
 */
import { writeFileSync } from 'node:fs';
import { CLIENT_TYPES_FILE, renderClientTypes } from './client-types';

renderClientTypes().then(
  (text) => {
    if (process.argv.includes('--stdout')) return void process.stdout.write(text);
    writeFileSync(CLIENT_TYPES_FILE, text);
    console.log(`wrote ${CLIENT_TYPES_FILE} (${text.length} characters)`);
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
