import { type ReadModelQueries } from '../read-model-port';
import { type AppliedMessage, appliedChannel, checkpointKey, metaKey, parseApplied } from './pool';
import { type RedisClient, type RedisSubscriber } from './connection';
import { createRedisReadModel, generationKey } from './redis-read-model';

/** A replica's view of read models it may not project: waits woken by `applied`, polled too. */
export interface RedisReadSide {
  live(): Promise<{ generation: string | null; readyAt: bigint | null; applied: bigint }>;
  queries(generation: string): ReadModelQueries;
  waitFor(generation: string, position: bigint, timeoutMs: number): Promise<boolean>;
  partitionPositions(generation: string): Promise<(bigint | null)[]>;
  close(): Promise<void>;
}

export interface RedisReadSideOptions {
  client: RedisClient;
  subscriber: RedisSubscriber | null;
  prefix: string;
  partitions: number;
  pollMs?: number;
  /** Every worker's `applied` message, parsed (what the live streams of this process follow). */
  onApplied?: (message: AppliedMessage) => void;
}

export const createRedisReadSide = async (
  options: RedisReadSideOptions,
): Promise<RedisReadSide> => {
  const { client, subscriber, prefix, partitions } = options;
  const pollMs = options.pollMs ?? 50;
  const models = new Map<string, ReadModelQueries>();
  let wakers = new Set<() => void>();
  const wakeAll = () => {
    const w = wakers;
    wakers = new Set();
    for (const f of w) f();
  };
  const onApplied = options.onApplied;
  if (subscriber !== null)
    await subscriber.subscribe(appliedChannel(prefix), (message: string) => {
      wakeAll();
      if (onApplied === undefined) return;
      const parsed = parseApplied(message);
      if (parsed !== null) onApplied(parsed);
    });

  const positions = async (generation: string): Promise<(bigint | null)[]> => {
    const keys = Array.from({ length: partitions }, (_, i) => checkpointKey(prefix, generation, i));
    const raw = await client.mGet(keys);
    return raw.map((r) => (r === null ? null : BigInt(r)));
  };
  /** -1 while some partition has applied nothing yet (before the log's first event). */
  const minimum = (ps: (bigint | null)[]): bigint => {
    let m: bigint | null = null;
    for (const p of ps) {
      if (p === null) return -1n;
      if (m === null || p < m) m = p;
    }
    return m ?? -1n;
  };

  return {
    live: async () => {
      const generation = await client.get(generationKey(prefix));
      if (generation === null) return { generation: null, readyAt: null, applied: -1n };
      const [meta, applied] = await Promise.all([
        client.get(metaKey(prefix, generation)),
        positions(generation).then(minimum),
      ]);
      const readyAt =
        meta === null ? null : BigInt((JSON.parse(meta) as { readyAt: string }).readyAt);
      return { generation, readyAt, applied };
    },
    queries: (generation) => {
      let q = models.get(generation);
      if (q === undefined) {
        q = createRedisReadModel({ client, prefix, generation }).queries;
        if (models.size > 4) models.clear();
        models.set(generation, q);
      }
      return q;
    },
    partitionPositions: positions,
    waitFor: async (generation, position, timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = minimum(await positions(generation));
        if (m >= position) return true;
        const left = deadline - Date.now();
        if (left <= 0) return false;
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            wakers.delete(done);
            resolve();
          };
          const timer = setTimeout(done, Math.min(left, pollMs));
          wakers.add(done);
        });
      }
    },
    close: async () => {
      wakeAll();
      if (subscriber !== null)
        await subscriber.unsubscribe(appliedChannel(prefix)).catch(() => undefined);
    },
  };
};
