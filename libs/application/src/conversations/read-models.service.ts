import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { type EventStore, StreamNotFoundError } from '@arbor/event-store';
import {
  type ConversationQueries,
  conversationsProjection,
  createConversationQueries,
  createProjector,
  dumpReadModels,
  openReadModelDb,
  type Projector,
  nextReadModelPath,
  readModelDataPath,
  switchReadModel,
} from '@arbor/projections';
import { ARBOR_CONFIG, type ArborConfig } from '../config/config';
import { AppError } from '../errors';
import { EVENT_STORE } from '../store/store.provider';

export const PROJECTIONS = [conversationsProjection] as const;
export const PROJECTION_FILTER = { streamPrefixes: ['conv-'] };

/**
 * The read side: SQLite read models beside the log, fed only by a subscription to `$all`. A
 * caller's reads wait until the projector has applied that caller's last write.
 */
@Injectable()
export class ReadModelsService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('ReadModels');
  private db!: Database.Database;
  private projector!: Projector;
  queries!: ConversationQueries;
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
  ) {}

  private file!: string;

  /**
   * A projector over a read-model file, started and caught up with the log as it is now — or,
   * when it fails on the way (SQLITE_FULL on a full disk), started anyway: it retries by itself
   * (1 s, doubling to 30 s) and reads answer 503 until it has caught up. Startup never waits on
   * a projector that cannot move (that hung a restart on a full disk).
   */
  private async open(file: string) {
    const db = openReadModelDb(file);
    const projector = createProjector({
      store: this.store,
      db,
      set: { projections: PROJECTIONS, filter: PROJECTION_FILTER },
      onError: (e) => this.logger.error(`projector stopped (retrying): ${String(e)}`),
      restartDelayMs: 1000,
    });
    await projector.start();
    const floor = await this.store.headPosition();
    if (floor !== null && !(await projector.waitFor(floor, 24 * 60 * 60 * 1000))) {
      this.logger.warn(`read models behind the log at startup (${projector.status().lastError})`);
    }
    return { db, projector, floor, queries: createConversationQueries(db) };
  }

  async onModuleInit(): Promise<void> {
    this.file = readModelDataPath(this.config.dataDir);
    Object.assign(this, await this.open(this.file));
  }

  async onModuleDestroy(): Promise<void> {
    // Also after a failed init (e.g. the read-model file could not be created on a full disk),
    // so that closing the app still reaches the store's shutdown.
    const projector = this.projector as Projector | undefined;
    const db = this.db as Database.Database | undefined;
    await projector?.stop();
    db?.close();
  }

  noteWrite(keyId: string, position: bigint | null): void {
    if (position === null) return;
    const prev = this.lastWrite.get(keyId);
    if (prev === undefined || position > prev) this.lastWrite.set(keyId, position);
  }

  /** Waits for the caller's last write to be visible, or answers 503 `projection_lagging`. */
  async consistentFor(keyId: string): Promise<ConversationQueries> {
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
  async upToDateWith(streamName: string): Promise<ConversationQueries> {
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
   * Replays the log from position 0 into a fresh file while the live read models keep serving,
   * then switches to it: no reader ever sees half-rebuilt tables.
   */
  async rebuild(): Promise<{ position: string | null }> {
    const file = nextReadModelPath(this.config.dataDir);
    const fresh = await this.open(file);
    const old = { db: this.db, projector: this.projector, file: this.file };
    Object.assign(this, fresh);
    this.file = file;
    await old.projector.stop();
    old.db.close();
    switchReadModel(this.config.dataDir, file, old.file);
    const p = this.projector.status().position;
    return { position: p === null ? null : p.toString() };
  }

  /** Canonical dump of every read model (for rebuild-equality checks). */
  dump(): string {
    return dumpReadModels(this.db, PROJECTIONS);
  }
}
