import { type EventStore, type RecordedEvent } from '@arbor/event-store';
import { type ProjectionSet } from '../projection';
import { createProjector, type Projector } from '../projector';
import {
  controlTag,
  createRedisReadModel,
  dropGeneration,
  FencedError,
  generationKey,
  projectorCheckpointKey,
  runScript,
} from './redis-read-model';
import { type RedisClient } from './connection';

// Leases and fencing: libs/projections/README.md ("Projector pool").

/** FNV-1a (32-bit) of the stream name, mod `partitions`: every process computes the same. */
export const partitionOf = (streamName: string, partitions: number): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < streamName.length; i++) {
    h ^= streamName.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % partitions;
};

export const leaseKey = (prefix: string, partition: number): string =>
  `${prefix}:${controlTag(prefix)}:lease:p${partition}`;
export const fenceKey = (prefix: string, partition: number): string =>
  `${prefix}:${controlTag(prefix)}:fence:p${partition}`;
export const workersKey = (prefix: string): string => `${prefix}:workers`;
export const partitionsKey = (prefix: string): string => `${prefix}:partitions`;
/** `<generation> <partition> <position> <[[stream, "rev"], …]>`, after the batch's writes. */
export const appliedChannel = (prefix: string): string => `${prefix}:applied`;

export interface AppliedMessage {
  generation: string;
  partition: number;
  position: bigint;
  streams: { streamName: string; revision: bigint }[];
}

export const lastRevisions = (
  events: readonly RecordedEvent[],
): { streamName: string; revision: bigint }[] => {
  const last = new Map<string, bigint>();
  for (const e of events) {
    const prev = last.get(e.streamName);
    if (prev === undefined || e.revision > prev) last.set(e.streamName, e.revision);
  }
  return [...last].map(([streamName, revision]) => ({ streamName, revision }));
};

export const formatApplied = (m: AppliedMessage): string =>
  `${m.generation} ${m.partition} ${m.position} ${JSON.stringify(
    m.streams.map((s) => [s.streamName, s.revision.toString()]),
  )}`;

export const parseApplied = (message: string): AppliedMessage | null => {
  const m = /^(\S+) (\d+) (-?\d+)(?: (.*))?$/s.exec(message);
  if (m === null) return null;
  let streams: { streamName: string; revision: bigint }[] = [];
  if (m[4] !== undefined) {
    try {
      const raw: unknown = JSON.parse(m[4]);
      if (!Array.isArray(raw)) return null;
      streams = raw.flatMap((x: unknown) =>
        Array.isArray(x) &&
        typeof x[0] === 'string' &&
        typeof x[1] === 'string' &&
        /^\d+$/.test(x[1])
          ? [{ streamName: x[0], revision: BigInt(x[1]) }]
          : [],
      );
    } catch {
      return null;
    }
  }
  return { generation: m[1], partition: Number(m[2]), position: BigInt(m[3]), streams };
};
/** Pub/sub channel: the log's new head position after every append (cross-process wake-up). */
export const headChannel = (prefix: string): string => `${prefix}:head`;
/** `{"readyAt": "<position>"}`: readers answer 503 until every partition is there. */
export const metaKey = (prefix: string, generation: string): string =>
  `${prefix}:${generation}:${controlTag(prefix)}:meta`;
export const partitionCheckpointName = (partition: number): string => `p${partition}`;
export const checkpointKey = (prefix: string, generation: string, partition: number): string =>
  projectorCheckpointKey(prefix, generation, partitionCheckpointName(partition));

/** Takes a free lease (KEYS: lease, fence): a new fencing token (INCR) with it, or 0 when held. */
export const ACQUIRE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. token, 'PX', ARGV[2])
return token
`;
export const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`;
/** Gives a lease (KEYS[1]) back, only if still held with exactly this value. */
export const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** The partition count everyone agrees on: the first process to start stores its own. */
export const agreePartitions = async (
  client: RedisClient,
  prefix: string,
  wanted: number,
): Promise<number> => {
  await client.set(partitionsKey(prefix), String(wanted), { condition: 'NX' });
  const stored = Number(await client.get(partitionsKey(prefix)));
  return Number.isInteger(stored) && stored > 0 ? stored : wanted;
};

/** A missing marker names a fresh generation ready at today's head: 503s, never partial rows. */
export const ensureLiveGeneration = async (
  client: RedisClient,
  prefix: string,
  head: bigint | null,
): Promise<string> => {
  const live = await client.get(generationKey(prefix));
  if (live !== null) return live;
  const fresh = `g${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
  await client.set(metaKey(prefix, fresh), JSON.stringify({ readyAt: (head ?? -1n).toString() }));
  await client.set(generationKey(prefix), fresh, { condition: 'NX' });
  return (await client.get(generationKey(prefix))) ?? fresh;
};

export interface PartitionStatus {
  partition: number;
  generation: string;
  token: number;
  position: bigint | null;
  running: boolean;
  lastError: string | null;
}

export interface PoolStatus {
  workerId: string;
  partitions: number;
  owned: PartitionStatus[];
  leaseChanges: { acquired: number; lost: number; released: number };
}

export interface ProjectorPool {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops ticking and applying WITHOUT giving the leases back (what a crash leaves). */
  halt(): Promise<void>;
  status(): PoolStatus;
  tick(): Promise<void>;
}

export interface ProjectorPoolOptions {
  client: RedisClient;
  prefix: string;
  partitions: number;
  leaseMs: number;
  workerId: string;
  store: EventStore;
  set: ProjectionSet;
  onError?: (error: unknown) => void;
  onLeaseChange?: (change: 'acquired' | 'lost' | 'released', partition: number) => void;
}

interface Owned {
  partition: number;
  token: number;
  value: string;
  generation: string;
  projector: Projector;
  failed: boolean;
}

export const createProjectorPool = (options: ProjectorPoolOptions): ProjectorPool => {
  const { client, prefix, partitions, leaseMs, workerId, store, set } = options;
  const owned = new Map<number, Owned>();
  const changes = { acquired: 0, lost: 0, released: 0 };
  let timer: NodeJS.Timeout | null = null;
  let ticking: Promise<void> | null = null;
  let stopped = true;
  const offset = partitionOf(workerId, partitions);

  const note = (change: 'acquired' | 'lost' | 'released', partition: number) => {
    changes[change] += 1;
    options.onLeaseChange?.(change, partition);
  };

  const startProjector = async (
    partition: number,
    token: number,
    generation: string,
  ): Promise<Owned> => {
    const value = `${workerId}:${token}`;
    const entry: Owned = {
      partition,
      token,
      value,
      generation,
      failed: false,
      projector: null as unknown as Projector,
    };
    const rm = createRedisReadModel({
      client,
      prefix,
      generation,
      name: partitionCheckpointName(partition),
      guardGeneration: generation,
      fence: () =>
        owned.get(partition) === entry
          ? { leaseKey: leaseKey(prefix, partition), leaseValue: value, token }
          : null,
    });
    const sink = {
      ...rm.sink,
      apply: async (events: readonly RecordedEvent[], position: bigint) => {
        await rm.sink.apply(events, position);
        await client.publish(
          appliedChannel(prefix),
          formatApplied({ generation, partition, position, streams: lastRevisions(events) }),
        );
      },
    };
    entry.projector = createProjector({
      store,
      sink,
      set,
      accept: (e) => partitionOf(e.streamName, partitions) === partition,
      onError: (error) => {
        entry.failed = true;
        if (!(error instanceof FencedError)) options.onError?.(error);
      },
    });
    await entry.projector.start();
    return entry;
  };

  const drop = async (entry: Owned, release: boolean): Promise<void> => {
    if (owned.get(entry.partition) === entry) owned.delete(entry.partition);
    await entry.projector.stop().catch(() => undefined);
    if (release) {
      await runScript(client, RELEASE, [leaseKey(prefix, entry.partition)], [entry.value]).catch(
        () => undefined,
      );
      note('released', entry.partition);
    }
  };

  /** Rows this worker wrote to a dead generation after its drop would stay forever: drop again. */
  const forgotten = new Set<string>();
  const forget = async (dead: string): Promise<void> => {
    if (forgotten.has(dead)) return;
    forgotten.add(dead);
    await dropGeneration(client, prefix, dead).catch((e: unknown) => {
      forgotten.delete(dead);
      options.onError?.(e);
    });
  };

  const tickOnce = async (): Promise<void> => {
    const head = await store.headPosition();
    const generation = await ensureLiveGeneration(client, prefix, head);
    // Heartbeat: live workers are the members whose expiry lies ahead.
    const now = Date.now();
    await client.zAdd(workersKey(prefix), { score: now + leaseMs, value: workerId });
    await client.zRemRangeByScore(workersKey(prefix), '-inf', now);
    const live = Math.max(1, await client.zCard(workersKey(prefix)));
    const fair = Math.ceil(partitions / live);

    const again: Owned[] = [];
    const stoppedIn = new Set<string>();
    for (const entry of [...owned.values()]) {
      const held =
        Number(
          await runScript(
            client,
            RENEW,
            [leaseKey(prefix, entry.partition)],
            [entry.value, String(leaseMs)],
          ),
        ) === 1;
      if (!held) {
        note('lost', entry.partition);
        await drop(entry, false);
        stoppedIn.add(entry.generation);
      } else if (entry.failed || entry.generation !== generation) {
        // Fenced or failed: again from the live generation's checkpoint, same lease.
        await drop(entry, false);
        stoppedIn.add(entry.generation);
        again.push(entry);
      }
    }
    // Every projector of this worker in a dead generation stopped: what they wrote there goes.
    for (const dead of stoppedIn) if (dead !== generation) await forget(dead);
    for (const entry of again) {
      if (stopped) return;
      owned.set(entry.partition, await startProjector(entry.partition, entry.token, generation));
    }
    // More than a fair share (a worker joined): give the extra partitions back.
    const mine = [...owned.values()].sort((a, b) => a.partition - b.partition);
    for (const entry of mine.slice(fair)) await drop(entry, true);

    for (let i = 0; i < partitions && owned.size < fair && !stopped; i++) {
      const partition = (offset + i) % partitions;
      if (owned.has(partition)) continue;
      const token = Number(
        await runScript(
          client,
          ACQUIRE,
          [leaseKey(prefix, partition), fenceKey(prefix, partition)],
          [workerId, String(leaseMs)],
        ),
      );
      if (token === 0) continue;
      note('acquired', partition);
      owned.set(partition, await startProjector(partition, token, generation));
    }
  };

  const tick = (): Promise<void> => {
    if (ticking !== null) return ticking;
    ticking = tickOnce()
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => {
        ticking = null;
      });
    return ticking;
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(
      () => {
        void tick().finally(schedule);
      },
      Math.max(50, Math.floor(leaseMs / 3)),
    );
    timer.unref();
  };

  const halt = async (): Promise<void> => {
    stopped = true;
    if (timer !== null) clearTimeout(timer);
    timer = null;
    await ticking;
    await Promise.all([...owned.values()].map((e) => e.projector.stop().catch(() => undefined)));
  };

  return {
    start: async () => {
      if (!stopped) return;
      stopped = false;
      await tick();
      schedule();
    },
    stop: async () => {
      await halt();
      await Promise.all([...owned.values()].map((e) => drop(e, true)));
      await client.zRem(workersKey(prefix), workerId).catch(() => undefined);
      owned.clear();
    },
    halt: async () => {
      await halt();
      owned.clear();
    },
    tick,
    status: () => ({
      workerId,
      partitions,
      owned: [...owned.values()]
        .sort((a, b) => a.partition - b.partition)
        .map((e) => {
          const s = e.projector.status();
          return {
            partition: e.partition,
            generation: e.generation,
            token: e.token,
            position: s.position,
            running: s.running,
            lastError: s.lastError,
          };
        }),
      leaseChanges: { ...changes },
    }),
  };
};
