import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { type EventStore, StreamNotFoundError } from '@arbor/event-store';
import {
  openReadModelBackend,
  type ProjectionProgress,
  type ProjectorStatus,
  type ReadModelBackend,
  type ReadModelQueries,
} from '@arbor/projections';
import { ARBOR_CONFIG, type ArborConfig } from '../config/config';
import { AppError } from '../errors';
import { EVENT_STORE } from '../store/store.provider';
import { HEAD_SIGNAL, type HeadSignal } from '../store/head-signal';
import { MetricsService, type PartitionLag } from '../metrics/metrics.service';
import { PROJECTED_SIGNALS, type ProjectedSignals } from '../live/projected-signal';
import { ErasureFanOut } from './erasure-fan-out';
import { projectionLags } from './projection-lag';
import { readModelOptions } from './read-model-options';
import { ReadYourWrites } from './read-your-writes';

export {
  erasureChannel,
  PROJECTION_FILTER,
  PROJECTIONS,
  type ProjectionProgress,
} from '@arbor/projections';

@Injectable()
export class ReadModelsService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('ReadModels');
  private backend: ReadModelBackend | null = null;
  private unregisterMetrics: (() => void)[] = [];
  private readonly erasures = new ErasureFanOut(() => this.backend);
  private readonly writes: ReadYourWrites;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ARBOR_CONFIG) private readonly config: ArborConfig,
    @Inject(HEAD_SIGNAL) private readonly headSignal: HeadSignal,
    @Inject(PROJECTED_SIGNALS) private readonly signals: ProjectedSignals,
    private readonly metrics: MetricsService,
  ) {
    this.writes = new ReadYourWrites(
      () => this.open(),
      config.readYourWritesTimeoutMs,
      this.logger,
    );
  }

  private open(): ReadModelBackend {
    if (this.backend === null) {
      throw new AppError('read_models_unavailable', 'The read models are not open.');
    }
    return this.backend;
  }

  async onModuleInit(): Promise<void> {
    this.unregisterMetrics = [
      this.metrics.registerLagSource(() => this.lags()),
      this.metrics.registerLeaseSource(
        () => this.backend?.leases() ?? Promise.resolve(new Map([['0', 0]])),
      ),
    ];
    this.backend = await openReadModelBackend({
      ...readModelOptions(this.config, this.store, this.logger),
      headSignal: this.headSignal,
      onApplied: (streams) => this.signals.publish(streams),
      onResync: () => this.signals.resync(),
      onErasure: (t, c) => this.erasures.heard(t, c),
      onRedisError: () => this.metrics.redisErrors.inc({ client: 'read-models' }),
    });
  }

  async onModuleDestroy(): Promise<void> {
    for (const unregister of this.unregisterMetrics) unregister();
    const backend = this.backend;
    this.backend = null;
    await backend?.close();
  }

  get queries(): ReadModelQueries {
    return this.open().queries();
  }

  onErasure(listener: (tenantId: string, conversationId: string) => void): void {
    this.erasures.on(listener);
  }

  announceErasure(tenantId: string, conversationId: string): Promise<void> {
    return this.erasures.announce(tenantId, conversationId);
  }

  dropErasedRows(tenantId: string, conversationId: string): Promise<number> {
    return this.backend?.dropErasedRows(tenantId, conversationId) ?? Promise.resolve(0);
  }

  compactAfterErasure(): void {
    this.backend?.compactAfterErasure();
  }

  async lags(): Promise<Map<string, PartitionLag>> {
    if (this.backend === null) return new Map();
    return projectionLags(this.store, await this.backend.progress());
  }

  noteWrite(keyId: string, position: bigint | null): Promise<void> {
    return this.writes.noteWrite(keyId, position);
  }

  consistentFor(keyId: string): Promise<ReadModelQueries> {
    return this.writes.forCaller(keyId);
  }

  async upToDateWith(streamName: string): Promise<ReadModelQueries> {
    let last;
    try {
      last = await this.store.readStream(streamName, { direction: 'backwards', maxCount: 1 });
    } catch (e) {
      if (e instanceof StreamNotFoundError) return this.writes.upTo(null);
      throw e;
    }
    return this.writes.upTo(last[0]?.position ?? null);
  }

  async reach(position: bigint): Promise<void> {
    await this.writes.upTo(position);
  }

  status(): ProjectorStatus {
    return this.open().status();
  }

  progress(): Promise<ProjectionProgress> {
    return this.open().progress();
  }

  rebuild(): Promise<{ position: string | null }> {
    return this.open().rebuild();
  }

  dump(): Promise<string> {
    return this.open().dump();
  }
}
