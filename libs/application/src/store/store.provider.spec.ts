/** Which key store the configuration picks (ARBOR_KEY_STORE, following the log by default). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { StoreUnavailableError } from '@arbor/event-store';
import { readConfig } from '../config/config';
import { createKeyStore } from './store.provider';

describe('createKeyStore', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-key-store-choice-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const UNREACHABLE = 'esdb://127.0.0.1:1?tls=false';

  it('SQLite beside the embedded log: keys.sqlite in the data dir', async () => {
    const keys = createKeyStore(readConfig({ ARBOR_DATA_DIR: dir }));
    await keys.keyFor('conv-t1.c1');
    await keys.close();
    expect(fs.existsSync(path.join(dir, 'keys.sqlite'))).toBe(true);
  });

  it('EventStoreDB beside an EventStoreDB log: no keys.sqlite, the server is asked', async () => {
    const keys = createKeyStore(
      readConfig({ ARBOR_DATA_DIR: dir, EVENTSTORE_CONNECTION_STRING: UNREACHABLE }),
    );
    await expect(keys.keyFor('conv-t1.c1')).rejects.toBeInstanceOf(StoreUnavailableError);
    await keys.close();
    expect(fs.existsSync(path.join(dir, 'keys.sqlite'))).toBe(false);
  });

  it('ARBOR_KEY_STORE=sqlite keeps the keys on this machine beside an EventStoreDB log', async () => {
    const keys = createKeyStore(
      readConfig({
        ARBOR_DATA_DIR: dir,
        EVENTSTORE_CONNECTION_STRING: UNREACHABLE,
        ARBOR_KEY_STORE: 'sqlite',
      }),
    );
    expect(await keys.keyFor('conv-t1.c1')).toHaveLength(32);
    await keys.close();
    expect(fs.existsSync(path.join(dir, 'keys.sqlite'))).toBe(true);
  });
});
