import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { type EventStore, StreamNotFoundError } from '@arbor/event-store';
import {
  agreePartitions,
  asyncQueries,
  checkpointKey,
  connectRedis,
  conversationsProjection,
  createProjectorPool,
  createRedisReadSide,
  ensureLiveGeneration,
  fenceKey,
  headChannel,
  scanKeys,
  metaKey,
  partitionOf,
  type ProjectorPool,
  type RedisReadSide,
  createConversationQueries,
  DEFAULT_BRANCH_WINDOW_CACHE,
  createProjector,
  createRedisReadModel,
  dropGeneration,
  generationKey,
  openReadModelDb,
  type Projector,
  nextReadModelPath,
  readModelDataPath,
  type ReadModelDb,
  type ReadModelQueries,
  type ReadModelSink,
  type RedisClient,
  type RedisSubscriber,
  runScript,
  sqliteSink,
  switchReadModel,
} from '@arbor/projections';
import { ARBOR_CONFIG, type ArborConfig } from '../config/config';
import { AppError } from '../errors';
import { EVENT_STORE } from '../store/store.provider';
import { HEAD_SIGNAL, type HeadSignal } from '../store/head-signal';
import { MetricsService, type PartitionLag } from '../metrics/metrics.service';
import { PROJECTED_SIGNALS, type ProjectedSignals, signalsOf } from '../live/projected-signal';

export const PROJECTIONS = [conversationsProjection] as const;
export const PROJECTION_FILTER = { streamPrefixes: ['conv-'] };

/**
 * The read side: read models fed only by a subscription to `$all` — SQLite beside the log by
 * default, Redis when `REDIS_URL` is set (the same port, `ReadModelQueries`). A caller's reads
 * wait until the projector has applied that caller's last write.
 */
/** How projection progress looks from one process (GET /v1/admin/projections, metrics). */
export interface ProjectionProgress {
  /** The log's head (global position), null when empty. */
  head: bigint | null;
  partitions: {
    partition: number;
    position: bigint | null;
    /** Events between the partition's checkpoint and the head (positions, not only its own). */
    lagPositions: bigint | null;
    /** Owned by this process's worker (with its fencing token), or not. */
    ownedHere: boolean;
    token: number | null;
  }[];
  leaseChanges: { acquired: number; lost: number; released: number } | null;
}

/** Where processes sharing one Redis announce erasures (tenant and conversation ids only). */
export const erasureChannel = (prefix: string): string => `${prefix}:erasures`;

/** Redis: the generation is compare-and-set, so two rebuilds cannot both switch. */
const SWITCH_SCRIPT = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('SET', KEYS[1], ARGV[3])
return 1
`;

/** Keeps the greatest write position per API key (read-your-writes across replicas). */
const NOTE_WRITE_SCRIPT = `
local cur = redis.call('GET', KEYS[1])
if cur == false or tonumber(cur) < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
return 1
`;

/**
 * The read side: read models fed only by a subscription to `$all` — SQLite beside the log by
 * default, Redis when `REDIS_URL` is set (the same port, `ReadModelQueries`). A caller's reads
 * wait until the projector has applied that caller's last write.
 *
 * With Redis the process may project nothing itself: the projector workers (a pool by lease,
 * `arbor project`, and `arbor serve` unless `--projector off`) write the read models, and every
 * read here follows the live generation, waits until every partition's checkpoint has reached
 * the caller's last write (kept in Redis per API key, so any replica sees it) and answers 503
 * `read_models_unavailable` when Redis is unreachable, its generation marker is missing (it was
 * emptied) or the generation is still being rebuilt.
 */
@Injectable()
export class ReadModelsService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('ReadModels');
  private db: ReadModelDb | null = null;
  private sink!: ReadModelSink;
  private projector!: Projector;
  private sqliteQueries!: ReadModelQueries;
  /** The generation the last Redis read found live. */
  private liveGeneration: string | null = null;
  private redis: RedisClient | null = null;
  private subscriber: RedisSubscriber | null = null;
  private readSide: RedisReadSide | null = null;
  private pool: ProjectorPool | null = null;
  private partitions = 1;
  /** Last write position per API key (bounded: one entry per key). */
  private readonly lastWrite = new Map<string, bigint>();
  /**
   * The log's head when the read models were opened. Every read waits for it too: if the
   * projector could not catch up at startup (e.g. a full disk), reads answer 503
   * projection_lagging instead of stale rows, and stop waiting once it has caught up.
   */
  private floor: bigint | null = null;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ARBOR_CONFIG) private readonly config: ArborConfig,
    @Inject(HEAD_SIGNAL) private readonly headSignal: HeadSignal,
    @Inject(PROJECTED_SIGNALS) private readonly signals: ProjectedSignals,
    private readonly metrics: MetricsService,
  ) {}

  private unregisterMetrics: (() => void)[] = [];

  /** Who empties this process's caches when any process erases a conversation. */
  private readonly erasureListeners: ((tenantId: string, conversationId: string) => void)[] = [];

  /** `listener` runs for every erasure, this process's and (with Redis) every other's. */
  onErasure(listener: (tenantId: string, conversationId: string) => void): void {
    this.erasureListeners.push(listener);
  }

  private heardErasure(message: string): void {
    try {
      const { t, c } = JSON.parse(message) as { t: unknown; c: unknown };
      if (typeof t !== 'string' || typeof c !== 'string') return;
      for (const l of this.erasureListeners) l(t, c);
    } catch {
      // Not ours: ignored.
    }
  }

  /**
   * An erasure happened here: this process's listeners run now, and with Redis every other
   * process's on `<prefix>:erasures`. Pub/sub may drop a message (a replica reconnecting);
   * that only leaves content in that replica's memory, never in an answer: every route checks
   * the shared key store's tombstone before any cache, and every log read asks the key store.
   */
  async announceErasure(tenantId: string, conversationId: string): Promise<void> {
    const message = JSON.stringify({ t: tenantId, c: conversationId });
    this.heardErasure(message);
    if (this.redis !== null) {
      await this.redis.publish(erasureChannel(this.config.redisPrefix), message);
    }
  }

  /**
   * Redis: every key of the conversation in every generation (the live one, one being rebuilt,
   * one a failed rebuild left), except the content-free `:erased` marker the projector keeps.
   * Run after the erasure was projected: the live generation is already clean, this catches the
   * rest. A rebuild still running replays the erasure event itself (it is in the log after every
   * content event of the conversation), so a batch it wrote from before the key was destroyed
   * goes when it gets there.
   */
  async dropErasedRows(tenantId: string, conversationId: string): Promise<number> {
    if (this.redis === null) return 0;
    const keys = await scanKeys(
      this.redis,
      `${this.config.redisPrefix}:*:{${tenantId}:${conversationId}}:*`,
    );
    const drop = keys.filter((k) => !k.endsWith(':erased'));
    // One key per UNLINK: the generations' keys of a conversation are in different slots.
    await Promise.all(drop.map((k) => (this.redis as RedisClient).unlink(k)));
    return drop.length;
  }

  /**
   * Every projector partition's lag: log positions between its applied position and the head,
   * and the age of the oldest event it has not applied. Embedded: the single projector
   * (partition "0"). Redis: every partition's checkpoint in the live generation (whoever
   * projects it), so any process — an API replica with `--projector off` too — sees the pool's
   * lag; a missing generation (Redis emptied) counts as nothing applied.
   */
  async lags(): Promise<Map<string, PartitionLag>> {
    const out = new Map<string, PartitionLag>();
    if (this.readSide === null) {
      const projector = this.projector as Projector | undefined;
      if (projector === undefined) return out;
      const head = await this.store.headPosition();
      out.set('0', await this.lagOf(head, projector.status().position));
      return out;
    }
    const progress = await this.progress();
    for (const p of progress.partitions) {
      out.set(String(p.partition), await this.lagOf(progress.head, p.position));
    }
    return out;
  }

  private async lagOf(head: bigint | null, applied: bigint | null): Promise<PartitionLag> {
    if (head === null || (applied !== null && applied >= head)) return { events: 0, seconds: 0 };
    const from = applied === null ? 'start' : applied;
    const next = (await this.store.readAll({ fromPosition: from, maxCount: 2 })).find(
      (e) => applied === null || e.position > applied,
    );
    return {
      events: Number(head - (applied ?? 0n)),
      seconds: next === undefined ? 0 : Math.max(0, (Date.now() - next.created.getTime()) / 1000),
    };
  }

  /** Leases granted per partition: the fencing tokens in Redis (embedded: "0", never leased). */
  private async leases(): Promise<Map<string, number>> {
    if (this.redis === null) return new Map([['0', 0]]);
    const raw = await this.redis.mGet(
      Array.from({ length: this.partitions }, (_, i) => fenceKey(this.config.redisPrefix, i)),
    );
    return new Map(raw.map((r, i) => [String(i), r === null ? 0 : Number(r)]));
  }

  private file!: string;

  /**
   * A projector over a read-model file, started and caught up with the log as it is now — or,
   * when it fails on the way (SQLITE_FULL on a full disk), started anyway: it retries by itself
   * (1 s, doubling to 30 s) and reads answer 503 until it has caught up. Startup never waits on
   * a projector that cannot move (that hung a restart on a full disk).
   */
  private async open(target: { file: string }) {
    const db = openReadModelDb(target.file, undefined, this.config.checkpointIntervalMs);
    const sink = sqliteSink(db, 'readmodels', PROJECTIONS);
    const queries = asyncQueries(
      createConversationQueries(db, {
        ...DEFAULT_BRANCH_WINDOW_CACHE,
        maxBytes: this.config.branchCacheMiB * 1024 * 1024,
      }),
    );
    const projector = createProjector({
      store: this.store,
      sink,
      set: { projections: PROJECTIONS, filter: PROJECTION_FILTER },
      onError: (e) => this.logger.error(`projector stopped (retrying): ${String(e)}`),
      restartDelayMs: 1000,
      // What the live streams wait for: the last revision applied per conversation stream.
      onApplied: (events) => this.signals.publish(signalsOf(events)),
    });
    await projector.start();
    const floor = await this.store.headPosition();
    if (floor !== null && !(await projector.waitFor(floor, 24 * 60 * 60 * 1000))) {
      this.logger.warn(`read models behind the log at startup (${projector.status().lastError})`);
    }
    return { db, sink, projector, floor, sqliteQueries: queries };
  }

  /** The read models as last seen live (no wait; SQLite's, or the live Redis generation's). */
  get queries(): ReadModelQueries {
    if (this.readSide === null) return this.sqliteQueries;
    return this.readSide.queries(this.liveGeneration ?? 'g1');
  }

  private redisKey(suffix: string): string {
    return `${this.config.redisPrefix}:${suffix}`;
  }

  async onModuleInit(): Promise<void> {
    this.unregisterMetrics = [
      this.metrics.registerLagSource(() => this.lags()),
      this.metrics.registerLeaseSource(() => this.leases()),
    ];
    if (this.config.redis !== null) {
      // One node or a cluster (REDIS_URL / REDIS_CLUSTER_URLS). Reconnects forever; a command
      // while disconnected fails at once (no offline queue), so reads answer 503 instead of
      // hanging.
      const client = await connectRedis(this.config.redis);
      client.onError((e: unknown) => {
        this.metrics.redisErrors.inc({ client: 'read-models' });
        this.logger.debug(`redis: ${String(e)}`);
      });
      this.redis = client;
      const subscriber = await client.subscriber();
      this.subscriber = subscriber;
      // Every process's subscriptions wake on any process's append (the shared log's head).
      await subscriber.subscribe(headChannel(this.config.redisPrefix), () =>
        this.headSignal.wake(),
      );
      await subscriber.subscribe(erasureChannel(this.config.redisPrefix), (m: string) =>
        this.heardErasure(m),
      );
      this.headSignal.publishTo((p) =>
        client.publish(headChannel(this.config.redisPrefix), p.toString()),
      );
      this.partitions = await agreePartitions(
        client,
        this.config.redisPrefix,
        this.config.partitions,
      );
      this.liveGeneration = await ensureLiveGeneration(
        client,
        this.config.redisPrefix,
        await this.store.headPosition(),
      );
      this.readSide = await createRedisReadSide({
        client,
        subscriber,
        prefix: this.config.redisPrefix,
        partitions: this.partitions,
        // Whichever worker projected a conversation wakes its live streams on this replica.
        onApplied: (m) => this.signals.publish(m.streams),
      });
      // A reconnected subscriber may have missed `applied` messages: every stream looks again.
      subscriber.onReconnect(() => this.signals.resync());
      if (this.config.projector) {
        this.pool = createProjectorPool({
          client,
          prefix: this.config.redisPrefix,
          partitions: this.partitions,
          leaseMs: this.config.leaseMs,
          workerId: this.config.workerId,
          store: this.store,
          set: { projections: PROJECTIONS, filter: PROJECTION_FILTER },
          onError: (e) => this.logger.warn(`projector worker: ${String(e)}`),
          onLeaseChange: (change, p) => this.logger.log(`partition ${p}: lease ${change}`),
        });
        await this.pool.start();
      }
      return;
    }
    this.file = readModelDataPath(this.config.dataDir);
    Object.assign(this, await this.open({ file: this.file }));
  }

  async onModuleDestroy(): Promise<void> {
    for (const unregister of this.unregisterMetrics) unregister();
    // Also after a failed init (e.g. the read-model file could not be created on a full disk),
    // so that closing the app still reaches the store's shutdown.
    const projector = this.projector as Projector | undefined;
    await projector?.stop();
    this.headSignal.publishTo(null);
    await this.pool?.stop().catch(() => undefined);
    await this.readSide?.close().catch(() => undefined);
    this.db?.close();
    await this.subscriber?.close().catch(() => undefined);
    await this.redis?.close().catch(() => undefined);
    this.redis = null;
    this.subscriber = null;
  }

  /**
   * Remembers the caller's write position (in Redis too, so a read on another replica waits
   * for it). A Redis failure here never fails the write: the log has it, and reads answer 503
   * while Redis is unreachable.
   */
  async noteWrite(keyId: string, position: bigint | null): Promise<void> {
    if (position === null) return;
    const prev = this.lastWrite.get(keyId);
    if (prev === undefined || position > prev) this.lastWrite.set(keyId, position);
    if (this.redis === null) return;
    try {
      await this.redis.eval(NOTE_WRITE_SCRIPT, {
        keys: [this.redisKey(`rw:${keyId}`)],
        arguments: [position.toString(), String(24 * 3600 * 1000)],
      });
    } catch (e) {
      this.logger.warn(`redis: the write position of key ${keyId} was not kept: ${String(e)}`);
    }
  }

  /** Redis: the live generation's queries once it holds `target` (and is ready), or a 503. */
  private async redisConsistent(
    target: bigint | null,
    keyId: string | null,
  ): Promise<ReadModelQueries> {
    const side = this.readSide as RedisReadSide;
    const client = this.redis as RedisClient;
    let live;
    let remote: string | null = null;
    try {
      [live, remote] = await Promise.all([
        side.live(),
        keyId === null ? Promise.resolve(null) : client.get(this.redisKey(`rw:${keyId}`)),
      ]);
    } catch (e) {
      throw new AppError('read_models_unavailable', `Redis is unreachable: ${String(e)}`);
    }
    if (live.generation === null) {
      throw new AppError(
        'read_models_unavailable',
        'The read models are missing (Redis lost its generation marker); they are being rebuilt from the log.',
      );
    }
    if (live.readyAt !== null && live.applied < live.readyAt) {
      throw new AppError(
        'read_models_unavailable',
        'The read models are being rebuilt from the log; retry shortly.',
      );
    }
    let wanted = target;
    if (remote !== null && (wanted === null || BigInt(remote) > wanted)) wanted = BigInt(remote);
    if (wanted !== null && wanted > live.applied) {
      let ok;
      try {
        ok = await side.waitFor(live.generation, wanted, this.config.readYourWritesTimeoutMs);
      } catch (e) {
        throw new AppError('read_models_unavailable', `Redis is unreachable: ${String(e)}`);
      }
      if (!ok) throw new AppError('projection_lagging', 'Retry shortly.');
    }
    this.liveGeneration = live.generation;
    return side.queries(live.generation);
  }

  /** Waits for the caller's last write to be visible, or answers 503 `projection_lagging`. */
  async consistentFor(keyId: string): Promise<ReadModelQueries> {
    const written = this.lastWrite.get(keyId);
    if (this.readSide !== null) return this.redisConsistent(written ?? null, keyId);
    const target =
      written === undefined || (this.floor !== null && this.floor > written) ? this.floor : written;
    if (target !== null) {
      const ok = await this.projector.waitFor(target, this.config.readYourWritesTimeoutMs);
      if (!ok) throw new AppError('projection_lagging', 'Retry shortly.');
    }
    return this.queries;
  }

  /**
   * Waits until the read models hold everything a conversation's stream held when called (its
   * last event's position), for reads that must match the write side exactly.
   */
  async upToDateWith(streamName: string): Promise<ReadModelQueries> {
    let last;
    try {
      last = await this.store.readStream(streamName, { direction: 'backwards', maxCount: 1 });
    } catch (e) {
      if (e instanceof StreamNotFoundError) {
        return this.readSide !== null ? this.redisConsistent(null, null) : this.queries;
      }
      throw e;
    }
    const position = last[0]?.position;
    if (this.readSide !== null) return this.redisConsistent(position ?? null, null);
    if (
      position !== undefined &&
      !(await this.projector.waitFor(position, this.config.readYourWritesTimeoutMs))
    ) {
      throw new AppError('projection_lagging', 'Retry shortly.');
    }
    return this.queries;
  }

  status() {
    if (this.readSide === null) return this.projector.status();
    const owned = this.pool?.status().owned ?? [];
    const lastError = owned.find((o) => o.lastError !== null)?.lastError ?? null;
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
      lastError,
    };
  }

  /**
   * Projector progress per partition: the checkpoints in Redis (every worker's, not only this
   * process's) against the log's head. The hook for metrics (projector lag, lease changes).
   */
  async progress(): Promise<ProjectionProgress> {
    const head = await this.store.headPosition();
    if (this.readSide === null) {
      const p = this.projector.status().position;
      return {
        head,
        partitions: [
          {
            partition: 0,
            position: p,
            lagPositions: head === null ? 0n : p === null ? head : head - p,
            ownedHere: true,
            token: null,
          },
        ],
        leaseChanges: null,
      };
    }
    const live = await (this.readSide as RedisReadSide).live();
    const positions =
      live.generation === null
        ? Array.from({ length: this.partitions }, () => null)
        : await (this.readSide as RedisReadSide).partitionPositions(live.generation);
    const pool = this.pool?.status();
    return {
      head,
      partitions: positions.map((position, partition) => {
        const mine = pool?.owned.find((o) => o.partition === partition);
        return {
          partition,
          position,
          lagPositions: head === null ? 0n : position === null ? head : head - position,
          ownedHere: mine !== undefined,
          token: mine?.token ?? null,
        };
      }),
      leaseChanges: pool?.leaseChanges ?? null,
    };
  }

  /** Waits until the read models have applied the log up to `position` (or 503). */
  async reach(position: bigint): Promise<void> {
    // With Redis this process may project nothing (`--projector off`): wait for the live
    // generation's partitions, as a read after a write does.
    if (this.readSide !== null) {
      await this.redisConsistent(position, null);
      return;
    }
    if (!(await this.projector.waitFor(position, this.config.readYourWritesTimeoutMs))) {
      throw new AppError('projection_lagging', 'Retry shortly.');
    }
  }

  /**
   * After an erasure was projected: the SQLite read models' WAL is checkpointed into the file and
   * truncated, so the deleted rows' old pages (secure_delete overwrote them in the file) are not
   * left in the WAL either. Redis deletes keys outright; nothing to do there.
   */
  compactAfterErasure(): void {
    this.db?.pragma('wal_checkpoint(TRUNCATE)');
  }

  /**
   * Replays the log from position 0 into fresh read models while the live ones keep serving,
   * then switches to them: no reader ever sees half-rebuilt rows. SQLite: a new file and an
   * atomic rename of the pointer; Redis: a new generation, built here per partition (each batch
   * guarded by "the old generation is still live"), then one compare-and-set of `<prefix>:gen`;
   * the workers' next batch on the old generation is refused, and they go on from the new
   * generation's partition checkpoints. The old generation's keys are then unlinked.
   */
  async rebuild(): Promise<{ position: string | null }> {
    if (this.redis !== null) return this.rebuildRedis(this.redis);
    const file = nextReadModelPath(this.config.dataDir);
    const fresh = await this.open({ file });
    const old = { db: this.db, projector: this.projector, file: this.file };
    Object.assign(this, fresh);
    this.file = file;
    await old.projector.stop();
    old.db?.close();
    switchReadModel(this.config.dataDir, file, old.file);
    const p = this.projector.status().position;
    return { position: p === null ? null : p.toString() };
  }

  private async rebuildRedis(client: RedisClient): Promise<{ position: string | null }> {
    const prefix = this.config.redisPrefix;
    for (;;) {
      const old = await ensureLiveGeneration(client, prefix, await this.store.headPosition());
      const generation = `g${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
      const projectors = Array.from({ length: this.partitions }, (_, partition) => {
        const rm = createRedisReadModel({
          client,
          prefix,
          generation,
          name: `p${partition}`,
          guardGeneration: old,
        });
        return createProjector({
          store: this.store,
          sink: rm.sink,
          set: { projections: PROJECTIONS, filter: PROJECTION_FILTER },
          accept: (e) => partitionOf(e.streamName, this.partitions) === partition,
        });
      });
      const head = await this.store.headPosition();
      await Promise.all(projectors.map((p) => p.start()));
      const reached =
        head === null ||
        (await Promise.all(projectors.map((p) => p.waitFor(head, 24 * 3600 * 1000)))).every(
          Boolean,
        );
      await Promise.all(projectors.map((p) => p.stop()));
      const fenced = projectors.some((p) =>
        (p.status().lastError ?? '').includes('ARBOR_GENERATION'),
      );
      if (!reached && !fenced) {
        await dropGeneration(client, prefix, generation);
        throw new Error(
          `rebuild failed: ${projectors.map((p) => p.status().lastError).join('; ')}`,
        );
      }
      const positions = await client.mGet(
        Array.from({ length: this.partitions }, (_, i) => checkpointKey(prefix, generation, i)),
      );
      const readyAt = positions.reduce<bigint>(
        (m, r) => (r === null ? -1n : BigInt(r) < m ? BigInt(r) : m),
        head ?? -1n,
      );
      const switched =
        !fenced &&
        Number(
          // Both in the control slot (one hash tag): single-slot, as Redis Cluster requires
          // (runScript checks it).
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
      await this.pool?.tick();
      return { position: head === null ? null : head.toString() };
    }
  }

  /** Canonical dump of every read model (for rebuild-equality checks). */
  async dump(): Promise<string> {
    if (this.redis !== null) {
      const live = await (this.readSide as RedisReadSide).live();
      if (live.generation === null) throw new AppError('read_models_unavailable', 'No generation.');
      return createRedisReadModel({
        client: this.redis,
        prefix: this.config.redisPrefix,
        generation: live.generation,
      }).sink.dump();
    }
    return Promise.resolve(this.sink.dump());
  }
}
