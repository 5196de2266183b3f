import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeEventStoreContract } from '../testing/event-store-contract';
import { openSqliteEventStore } from './sqlite-event-store';

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-'));

describeEventStoreContract('sqlite', async () => {
  const dir = tempDir();
  const store = openSqliteEventStore({ path: path.join(dir, 'events.sqlite'), pollIntervalMs: 20 });
  return {
    store,
    cleanup: async () => {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});
