/** Picks the client from the connection options: `--url` (HTTP) or the embedded store. */
import { readConfig } from '@arbor/application';
import { usageError } from '../errors';
import { createEmbeddedClient } from './embedded';
import { createHttpClient } from './http';
import { type ArborClient } from './types';

export interface ConnectionOptions {
  url?: string;
  key?: string;
  dataDir?: string;
  tenant?: string;
}

export const connect = async (
  options: ConnectionOptions,
  env: NodeJS.ProcessEnv,
  say: (line: string) => void,
): Promise<ArborClient> => {
  const url = options.url ?? env.ARBOR_URL;
  if (url !== undefined && url !== '') {
    const key = options.key ?? env.ARBOR_API_KEY;
    if (key === undefined || key === '')
      throw usageError('--url needs a tenant API key: --key <key> or ARBOR_API_KEY');
    if (options.dataDir !== undefined || options.tenant !== undefined)
      throw usageError('--data-dir and --tenant are for the embedded store, not with --url');
    return createHttpClient({ url, key });
  }
  const config = readConfig({
    ...env,
    ...(options.dataDir !== undefined ? { ARBOR_DATA_DIR: options.dataDir } : {}),
  });
  return createEmbeddedClient({
    config,
    tenantId: options.tenant,
    onTenantCreated: (id) =>
      say(`arbor: created the local tenant ${id} in ${config.dataDir} (embedded store)`),
  });
};
