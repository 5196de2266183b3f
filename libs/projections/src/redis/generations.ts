import { type RedisClient } from './connection';
import { generationKey } from './keys';

/** The live generation, creating `initial` as the live one when none is set yet. */
export const ensureGeneration = async (
  client: RedisClient,
  prefix: string,
  initial: string,
): Promise<string> => {
  await client.set(generationKey(prefix), initial, { condition: 'NX' });
  const live = await client.get(generationKey(prefix));
  return live ?? initial;
};

/** Names `generation` the live one (one SET: readers switch atomically). */
export const switchGeneration = (
  client: RedisClient,
  prefix: string,
  generation: string,
): Promise<unknown> => client.set(generationKey(prefix), generation);

export const scanKeys = (client: RedisClient, pattern: string): Promise<string[]> =>
  client.scanKeys(pattern);

/** Deletes the keys matching `pattern` (SCAN + UNLINK), one key per call (Cluster-safe). */
export const unlinkMatching = async (client: RedisClient, pattern: string): Promise<number> => {
  const keys = await scanKeys(client, pattern);
  await Promise.all(keys.map((k) => client.unlink(k)));
  return keys.length;
};

export const dropGeneration = (
  client: RedisClient,
  prefix: string,
  generation: string,
): Promise<number> => unlinkMatching(client, `${prefix}:${generation}:*`);
