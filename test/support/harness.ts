import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type StoreFactory } from '@arbor/application';
import { createApp } from '../../apps/api/src/bootstrap';
import { type ArborConfig, readConfig } from '@arbor/application';
import { type Call, httpCall } from './http';
import {
  cleanupPrefix,
  connectTestRedis,
  randomPrefix,
  TEST_REDIS_URL,
} from '@arbor/projections/testing/redis';

export const ADMIN_KEY = 'test-admin-key-0123456789';

export interface Harness {
  app: NestFastifyApplication;
  baseUrl: string;
  dataDir: string;
  config: ArborConfig;
  /** Calls the API over real HTTP (`httpCall` on this server). */
  call: Call;
  /** Stops the server (data stays). */
  stop(): Promise<void>;
  /** Stops and starts a new process-equivalent app on the same data directory. */
  restart(): Promise<void>;
  /** Stops and deletes the data directory. */
  destroy(): Promise<void>;
  createTenant(name?: string): Promise<{ id: string; apiKey: string }>;
}

export { type CallOptions, httpCall, type HttpResult } from './http';

/** The real app on a real SQLite file in a fresh temp directory, listening on 127.0.0.1. */
export const startHarness = async (
  env: Record<string, string> = {},
  /** Builds the event log instead of the app's own (e.g. to inject faults); used on restart too. */
  storeFactory?: StoreFactory,
): Promise<Harness> => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-e2e-'));
  // ARBOR_E2E_READ_MODELS=redis runs any e2e spec with its read models in Redis, under a key
  // prefix of its own that `destroy` deletes (SCAN + UNLINK of that prefix only).
  const redisPrefix =
    process.env.ARBOR_E2E_READ_MODELS === 'redis' && env.REDIS_URL === undefined
      ? randomPrefix('e2e')
      : null;
  const config = readConfig({
    ARBOR_DATA_DIR: dataDir,
    ARBOR_ADMIN_KEY: ADMIN_KEY,
    LOG_LEVEL: 'silent',
    ARBOR_SQLITE_SYNCHRONOUS: 'NORMAL',
    ...(redisPrefix !== null ? { REDIS_URL: TEST_REDIS_URL, ARBOR_REDIS_PREFIX: redisPrefix } : {}),
    ...env,
  });
  let app = await createApp(config, storeFactory);
  await app.listen(0, '127.0.0.1');
  const urlOf = (a: NestFastifyApplication): string => {
    const address = a.getHttpServer().address();
    if (!address || typeof address === 'string') throw new Error('no address');
    return `http://127.0.0.1:${address.port}`;
  };
  const h: Harness = {
    app,
    baseUrl: urlOf(app),
    dataDir,
    config,
    call: (method, url, options) => httpCall(h.baseUrl, method, url, options),
    async stop() {
      await app.close();
    },
    async restart() {
      await app.close();
      app = await createApp(config, storeFactory);
      await app.listen(0, '127.0.0.1');
      h.app = app;
      h.baseUrl = urlOf(app);
    },
    async destroy() {
      await app.close().catch(() => undefined);
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (redisPrefix !== null) {
        const client = await connectTestRedis();
        await cleanupPrefix(client, redisPrefix);
        await client.close();
      }
    },
    async createTenant(name) {
      const r = await h.call('POST', '/v1/tenants', { key: ADMIN_KEY, body: name ? { name } : {} });
      if (r.status !== 201) throw new Error(`createTenant: ${r.status} ${r.text}`);
      return r.body as { id: string; apiKey: string };
    },
  };
  return h;
};
