/** The key-store contract against the SQLite key store (`<dataDir>/keys.sqlite`). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeKeyStoreContract } from '../testing/key-store-contract';
import { openSqliteKeyStore } from './key-store';

describeKeyStoreContract('sqlite', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-key-store-'));
  const file = path.join(dir, 'keys.sqlite');
  return {
    open: (masterKey) => openSqliteKeyStore(file, masterKey),
    storedBytes: async () =>
      Buffer.concat(fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f)))),
    cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
});
