/**
 * Starts Arbor in this process on a fresh temporary data directory (the real app, SQLite log)
 * and makes one tenant; or, with ARBOR_URL and ARBOR_KEY set, uses that running server instead.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../apps/api/src/bootstrap';
import { readConfig } from '@arbor/application';
import { ArborClient } from '@arbor/client';

export interface Arbor {
  baseUrl: string;
  apiKey: string;
  stop(): Promise<void>;
}

export const startArbor = async (): Promise<Arbor> => {
  if (process.env.ARBOR_URL && process.env.ARBOR_KEY)
    return { baseUrl: process.env.ARBOR_URL, apiKey: process.env.ARBOR_KEY, stop: async () => {} };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-example-'));
  const adminKey = 'example-admin-key-0123456789';
  const config = readConfig({
    ARBOR_DATA_DIR: dataDir,
    ARBOR_ADMIN_KEY: adminKey,
    LOG_LEVEL: 'silent',
  });
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  if (!address || typeof address === 'string') throw new Error('no address');
  const baseUrl = `http://127.0.0.1:${address.port}`;
  const admin = new ArborClient({ baseUrl, apiKey: adminKey });
  const { apiKey } = await admin.call('createTenant', { body: { name: 'example' } });
  return {
    baseUrl,
    apiKey,
    stop: async () => {
      await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
};
