import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { type EventStore, StreamNotFoundError } from '@arbor/event-store';
import { createClient } from 'redis';
import {
  asyncQueries,
  conversationsProjection,
  createConversationQueries,
  createProjector,
  createRedisReadModel,
  dropGeneration,
  ensureGeneration,
  openReadModelDb,
  type Projector,
  nextReadModelPath,
  readModelDataPath,
  type ReadModelQueries,
  type ReadModelSink,
  type RedisClient,
  sqliteSink,
  switchGeneration,
  switchReadModel,
} from '@arbor/projections';
import { ARBOR_CONFIG, type ArborConfig } from '../config/config';
import { AppError } from '../errors';
import { EVENT_STORE } from '../store/store.provider';
import { MetricsService, type PartitionLag } from '../metrics/metrics.service';
import { PROJECTED_SIGNALS, type ProjectedSignals, signalsOf } from '../live/projected-signal';

export const PROJECTIONS = [conversationsProjection] as const;
export const PROJECTION_FILTER = { streamPrefixes: ['conv-'] };

/**
 * The read side: read models fed only by a subscription to `$all` — SQLite beside the log by
 * default, Redis when `REDIS_URL` is set (the same port, `ReadModelQueries`). A caller's reads
 * wait until the projector has applied that caller's last write.
 */
@Injectable()
export class ReadModelsService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('ReadModels');
  private db: Database.Database | null = null;
  private sink!: ReadModelSink;
  private projector!: Projector;
  queries!: ReadModelQueries;
  private redis: RedisClient | null = null;
  /** The Redis generation being served (Redis read models only). */
  private generation: string | null = null;
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
    @Inject(PROJECTED_SIGNALS) private readonly signals: ProjectedSignals,
    private readonly metrics: MetricsService,
  ) {}

  private unregisterLag: (() => void) | null = null;

  /**
   * The single projector's lag (partition "0"): log positions between its applied position and
   * the head, and the age of the oldest event it has not applied.
   */
  async lag(): Promise<PartitionLag | null> {
    const projector = this.projector as Projector | undefined;
    if (projector === undefined) return null;
    const head = await this.store.headPosition();
    const applied = projector.status().position;
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

  private file!: string;

  /**
   * A projector over a read-model file, started and caught up with the log as it is now — or,
   * when it fails on the way (SQLITE_FULL on a full disk), started anyway: it retries by itself
   * (1 s, doubling to 30 s) and reads answer 503 until it has caught up. Startup never waits on
   * a projector that cannot move (that hung a restart on a full disk).
   */
  private async open(target: { file: string } | { generation: string }) {
    let db: Database.Database | null = null;
    let sink: ReadModelSink;
    let queries: ReadModelQueries;
    if ('file' in target) {
      db = openReadModelDb(target.file);
      sink = sqliteSink(db, 'readmodels', PROJECTIONS);
      queries = asyncQueries(createConversationQueries(db));
    } else {
      const rm = createRedisReadModel({
        client: this.redis as RedisClient,
        prefix: this.config.redisPrefix,
        generation: target.generation,
      });
      sink = rm.sink;
      queries = rm.queries;
    }
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
    return { db, sink, projector, floor, queries };
  }

  async onModuleInit(): Promise<void> {
    this.unregisterLag = this.metrics.registerLagSource('0', () => this.lag());
    if (this.config.redisUrl !== null) {
      const client: RedisClient = createClient({ url: this.config.redisUrl });
      client.on('error', (e: unknown) => {
        this.metrics.redisErrors.inc({ client: 'read-models' });
        this.logger.error(`redis: ${String(e)}`);
      });
      await client.connect();
      this.redis = client;
      this.generation = await ensureGeneration(client, this.config.redisPrefix, 'g1');
      Object.assign(this, await this.open({ generation: this.generation }));
      return;
    }
    this.file = readModelDataPath(this.config.dataDir);
    Object.assign(this, await this.open({ file: this.file }));
  }

  async onModuleDestroy(): Promise<void> {
    this.unregisterLag?.();
    // Also after a failed init (e.g. the read-model file could not be created on a full disk),
    // so that closing the app still reaches the store's shutdown.
    const projector = this.projector as Projector | undefined;
    await projector?.stop();
    this.db?.close();
    if (this.redis !== null) await this.redis.quit();
    this.redis = null;
  }

  noteWrite(keyId: string, position: bigint | null): void {
    if (position === null) return;
    const prev = this.lastWrite.get(keyId);
    if (prev === undefined || position > prev) this.lastWrite.set(keyId, position);
  }

  /** Waits for the caller's last write to be visible, or answers 503 `projection_lagging`. */
  async consistentFor(keyId: string): Promise<ReadModelQueries> {
    const written = this.lastWrite.get(keyId);
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
      if (e instanceof StreamNotFoundError) return this.queries;
      throw e;
    }
    const position = last[0]?.position;
    if (
      position !== undefined &&
      !(await this.projector.waitFor(position, this.config.readYourWritesTimeoutMs))
    ) {
      throw new AppError('projection_lagging', 'Retry shortly.');
    }
    return this.queries;
  }

  status() {
    return this.projector.status();
  }

  /**
   * Replays the log from position 0 into fresh read models while the live ones keep serving,
   * then switches to them: no reader ever sees half-rebuilt rows. SQLite: a new file and an
   * atomic rename of the pointer; Redis: a new generation and one SET of `<prefix>:gen`, then
   * the old generation's keys are unlinked.
   */
  async rebuild(): Promise<{ position: string | null }> {
    if (this.redis !== null) {
      const generation = `g${Date.now().toString(36)}`;
      const fresh = await this.open({ generation });
      const old = { projector: this.projector, generation: this.generation as string };
      Object.assign(this, fresh);
      this.generation = generation;
      await old.projector.stop();
      await switchGeneration(this.redis, this.config.redisPrefix, generation);
      await dropGeneration(this.redis, this.config.redisPrefix, old.generation);
    } else {
      const file = nextReadModelPath(this.config.dataDir);
      const fresh = await this.open({ file });
      const old = { db: this.db, projector: this.projector, file: this.file };
      Object.assign(this, fresh);
      this.file = file;
      await old.projector.stop();
      old.db?.close();
      switchReadModel(this.config.dataDir, file, old.file);
    }
    const p = this.projector.status().position;
    return { position: p === null ? null : p.toString() };
  }

  /** Canonical dump of every read model (for rebuild-equality checks). */
  dump(): Promise<string> {
    return Promise.resolve(this.sink.dump());
  }
}
