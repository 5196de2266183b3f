import { type EventStore } from '@arbor/event-store';
import { createProjector } from '../projector';
import { type RedisClient } from '../redis/connection';
import { dropGeneration } from '../redis/generations';
import { generationKey } from '../redis/keys';
import { checkpointKey, ensureLiveGeneration, metaKey, partitionOf } from '../redis/pool';
import { createRedisSink } from '../redis/writer';
import { runScript } from '../redis/scripts';
import { PROJECTION_SET } from './projections';

/** Names a generation live only if the live one is still ARGV[1]: two rebuilds cannot both win. */
const SWITCH_SCRIPT = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('SET', KEYS[1], ARGV[3])
return 1
`;

const DAY_MS = 24 * 3600 * 1000;

/** A new generation per partition while the old one serves, then a compare-and-set switch. */
export const rebuildRedisReadModels = async (options: {
  client: RedisClient;
  store: EventStore;
  prefix: string;
  partitions: number;
  afterSwitch?: () => Promise<void>;
}): Promise<{ position: string | null }> => {
  const { client, store, prefix, partitions } = options;
  for (;;) {
    const old = await ensureLiveGeneration(client, prefix, await store.headPosition());
    const generation = `g${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
    const projectors = Array.from({ length: partitions }, (_, partition) =>
      createProjector({
        store,
        sink: createRedisSink({
          client,
          prefix,
          generation,
          name: `p${partition}`,
          guardGeneration: old,
        }),
        set: PROJECTION_SET,
        accept: (e) => partitionOf(e.streamName, partitions) === partition,
      }),
    );
    const head = await store.headPosition();
    await Promise.all(projectors.map((p) => p.start()));
    const reached =
      head === null ||
      (await Promise.all(projectors.map((p) => p.waitFor(head, DAY_MS)))).every(Boolean);
    await Promise.all(projectors.map((p) => p.stop()));
    const fenced = projectors.some((p) =>
      (p.status().lastError ?? '').includes('ARBOR_GENERATION'),
    );
    if (!reached && !fenced) {
      await dropGeneration(client, prefix, generation);
      throw new Error(`rebuild failed: ${projectors.map((p) => p.status().lastError).join('; ')}`);
    }
    const positions = await client.mGet(
      Array.from({ length: partitions }, (_, i) => checkpointKey(prefix, generation, i)),
    );
    const readyAt = positions.reduce<bigint>(
      (m, r) => (r === null ? -1n : BigInt(r) < m ? BigInt(r) : m),
      head ?? -1n,
    );
    const switched =
      !fenced &&
      Number(
        // Marker and meta share the control slot, as a cluster requires.
        await runScript(
          client,
          SWITCH_SCRIPT,
          [generationKey(prefix), metaKey(prefix, generation)],
          [old, JSON.stringify({ readyAt: readyAt.toString() }), generation],
        ),
      ) === 1;
    if (!switched) {
      // Another rebuild (or an emptied Redis) switched first: build again over the live one.
      await dropGeneration(client, prefix, generation);
      continue;
    }
    await dropGeneration(client, prefix, old);
    await options.afterSwitch?.();
    return { position: head === null ? null : head.toString() };
  }
};
