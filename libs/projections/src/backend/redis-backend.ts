import { connectRedis, type RedisClient } from '../redis/connection';
import { scanKeys } from '../redis/generations';
import {
  agreePartitions,
  createProjectorPool,
  ensureLiveGeneration,
  fenceKey,
  headChannel,
} from '../redis/pool';
import { createRedisReadModel } from '../redis/redis-read-model';
import { createRedisReadSide } from '../redis/read-side';
import { type ReadModelBackend, type ReadModelBackendOptions, type ReadWait } from './port';
import { PROJECTION_SET } from './projections';
import { rebuildRedisReadModels } from './redis-rebuild';
import { noteWritePosition, readWritePosition } from './redis-write-positions';

export const erasureChannel = (prefix: string): string => `${prefix}:erasures`;

const unreachable = (e: unknown): ReadWait => ({
  ok: false,
  reason: 'unavailable',
  message: `Redis is unreachable: ${String(e)}`,
});

const parseErasure = (message: string): { t: string; c: string } | null => {
  try {
    const { t, c } = JSON.parse(message) as { t: unknown; c: unknown };
    return typeof t === 'string' && typeof c === 'string' ? { t, c } : null;
  } catch {
    return null;
  }
};

/** Reads follow the live generation; commands fail at once while disconnected, so reads answer. */
export const openRedisBackend = async (
  options: ReadModelBackendOptions & { redis: NonNullable<ReadModelBackendOptions['redis']> },
): Promise<ReadModelBackend> => {
  const { store, log, redisPrefix: prefix } = options;
  const client: RedisClient = await connectRedis(options.redis);
  client.onError((e: unknown) => {
    options.onRedisError?.(e);
    log.debug(`redis: ${String(e)}`);
  });
  const subscriber = await client.subscriber();
  const headSignal = options.headSignal;
  try {
    if (headSignal !== undefined) {
      await subscriber.subscribe(headChannel(prefix), () => headSignal.wake());
      headSignal.publishTo((p) => client.publish(headChannel(prefix), p.toString()));
    }
    await subscriber.subscribe(erasureChannel(prefix), (m: string) => {
      const heard = parseErasure(m);
      if (heard !== null) options.onErasure?.(heard.t, heard.c);
    });
  } catch (e) {
    headSignal?.publishTo(null);
    await subscriber.close().catch(() => undefined);
    await client.close().catch(() => undefined);
    throw e;
  }
  const partitions = await agreePartitions(client, prefix, options.partitions);
  let liveGeneration = await ensureLiveGeneration(client, prefix, await store.headPosition());
  const readSide = await createRedisReadSide({
    client,
    subscriber,
    prefix,
    partitions,
    onApplied: (m) => options.onApplied?.(m.streams),
  });
  subscriber.onReconnect(() => options.onResync?.());
  const pool = options.projector
    ? createProjectorPool({
        client,
        prefix,
        partitions,
        leaseMs: options.leaseMs,
        workerId: options.workerId,
        store,
        set: PROJECTION_SET,
        onError: (e) => log.warn(`projector worker: ${String(e)}`),
        onLeaseChange: (change, p) => log.log(`partition ${p}: lease ${change}`),
      })
    : null;
  await pool?.start();

  const waitFor = async (
    position: bigint | null,
    keyId: string | null,
    timeoutMs: number,
  ): Promise<ReadWait> => {
    let live;
    let remote: bigint | null = null;
    try {
      [live, remote] = await Promise.all([
        readSide.live(),
        keyId === null ? Promise.resolve(null) : readWritePosition(client, prefix, keyId),
      ]);
    } catch (e) {
      return unreachable(e);
    }
    if (live.generation === null) {
      return {
        ok: false,
        reason: 'unavailable',
        message:
          'The read models are missing (Redis lost its generation marker); they are being rebuilt from the log.',
      };
    }
    if (live.readyAt !== null && live.applied < live.readyAt) {
      return {
        ok: false,
        reason: 'unavailable',
        message: 'The read models are being rebuilt from the log; retry shortly.',
      };
    }
    const wanted = remote !== null && (position === null || remote > position) ? remote : position;
    if (wanted !== null && wanted > live.applied) {
      let ok;
      try {
        ok = await readSide.waitFor(live.generation, wanted, timeoutMs);
      } catch (e) {
        return unreachable(e);
      }
      if (!ok) return { ok: false, reason: 'lagging', message: 'Retry shortly.' };
    }
    liveGeneration = live.generation;
    return { ok: true, queries: readSide.queries(live.generation) };
  };

  return {
    kind: 'redis',
    queries: () => readSide.queries(liveGeneration),
    waitFor,
    noteWrite: (keyId, position) => noteWritePosition(client, prefix, keyId, position),
    publishErasure: async (t, c) => {
      await client.publish(erasureChannel(prefix), JSON.stringify({ t, c }));
    },
    // Every generation's keys but the content-free `:erased` marker; one UNLINK per key, as
    // the generations' keys of a conversation sit in different slots.
    dropErasedRows: async (t, c) => {
      const keys = await scanKeys(client, `${prefix}:*:{${t}:${c}}:*`);
      const drop = keys.filter((k) => !k.endsWith(':erased'));
      await Promise.all(drop.map((k) => client.unlink(k)));
      return drop.length;
    },
    compactAfterErasure: () => undefined,
    status: () => {
      const owned = pool?.status().owned ?? [];
      return {
        position:
          owned.length === 0
            ? null
            : owned.reduce<bigint | null>(
                (m, o) => (o.position === null ? m : m === null || o.position < m ? o.position : m),
                null,
              ),
        caughtUp: owned.every((o) => o.running),
        running: owned.some((o) => o.running),
        lastError: owned.find((o) => o.lastError !== null)?.lastError ?? null,
      };
    },
    // Every worker's checkpoints in the live generation, not only this process's.
    progress: async () => {
      const head = await store.headPosition();
      const live = await readSide.live();
      const positions =
        live.generation === null
          ? Array.from({ length: partitions }, () => null)
          : await readSide.partitionPositions(live.generation);
      const mine = pool?.status();
      return {
        head,
        partitions: positions.map((position, partition) => {
          const owned = mine?.owned.find((o) => o.partition === partition);
          return {
            partition,
            position,
            lagPositions: head === null ? 0n : position === null ? head : head - position,
            ownedHere: owned !== undefined,
            token: owned?.token ?? null,
          };
        }),
        leaseChanges: mine?.leaseChanges ?? null,
      };
    },
    leases: async () => {
      const raw = await client.mGet(
        Array.from({ length: partitions }, (_, i) => fenceKey(prefix, i)),
      );
      return new Map(raw.map((r, i) => [String(i), r === null ? 0 : Number(r)]));
    },
    rebuild: () =>
      rebuildRedisReadModels({
        client,
        store,
        prefix,
        partitions,
        afterSwitch: async () => {
          await pool?.tick();
        },
      }),
    dump: async () => {
      const live = await readSide.live();
      if (live.generation === null) throw new Error('read models unavailable: no generation');
      return createRedisReadModel({ client, prefix, generation: live.generation }).sink.dump();
    },
    close: async () => {
      headSignal?.publishTo(null);
      await pool?.stop().catch(() => undefined);
      await readSide.close().catch(() => undefined);
      await subscriber.close().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
};
