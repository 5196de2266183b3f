import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { type EventStore } from '@arbor/event-store';
import { ARBOR_CONFIG, type ArborConfig } from './config/config';
import {
  renderPagesProvider,
  summarizeBranchProvider,
  summarizeProvider,
} from './context/context.providers';
import { AssemblyPool } from './context/assembly-pool';
import { ContextService } from './context/context.service';
import { HeavyWorkGate } from './context/heavy-work';
import { MoveTipWithSummaryHandler } from './context/branch-summary';
import { CONTEXT_HANDLERS } from './context/commands';
import { DRAFT_HANDLERS } from './drafts/commands';
import { COMMAND_HANDLERS, ConversationWriter } from './conversations/commands';
import { ConversationRepository } from './conversations/conversation.repository';
import { QUERY_HANDLERS } from './conversations/queries';
import { READ_MODEL_ADMIN_HANDLERS } from './conversations/read-model-admin';
import { ReadModelsService } from './conversations/read-models.service';
import { REPLAY_QUERY_HANDLERS } from './replay/queries';
import { AUDIT_QUERY_HANDLERS } from './audit/queries';
import { ERASURE_COMMAND_HANDLERS } from './erasure/commands';
import { ReplayService } from './replay/replay.service';
import {
  createEventStore,
  createKeyStore,
  EVENT_STORE,
  KEY_STORE,
  SEALED_EVENT_STORE,
  StoreLifecycle,
  withContentEncryption,
} from './store/store.provider';
import {
  createHeadSignal,
  HEAD_SIGNAL,
  type HeadSignal,
  withAppendSignal,
} from './store/head-signal';
import { type KeyStore } from '@arbor/event-store/crypto';
import { TenantDirectoryService } from './tenants/tenant-directory.service';
import { TENANT_COMMAND_HANDLERS } from './tenants/commands';
import { TENANT_QUERY_HANDLERS } from './tenants/queries';
import { ADMIN_READ_HANDLERS } from './tenants/admin-reads';
import { AdminReadsService } from './tenants/admin-reads.service';
import { ErasureService } from './erasure/erasure.service';
import {
  createIdempotencyStore,
  IDEMPOTENCY_MEMOS,
  IDEMPOTENCY_STORE,
  IdempotencyLifecycle,
} from './idempotency/memos';
import { MetricsService } from './metrics/metrics.service';
import { RateLimiterService } from './rate-limit/rate-limiter.service';
import { ConversationStreamsService } from './live/conversation-streams.service';
import { InProcessProjectedSignals, PROJECTED_SIGNALS } from './live/projected-signal';

/** Builds the event log from the config; tests pass one to wrap the real store (fault injection). */
export type StoreFactory = (config: ArborConfig, signal?: HeadSignal) => EventStore;

/** Global, so an edge's controllers can inject its services. */
@Module({})
export class ApplicationModule {
  static forRoot(
    config: ArborConfig,
    storeFactory: StoreFactory = createEventStore,
  ): DynamicModule {
    const providers: Provider[] = [
      { provide: ARBOR_CONFIG, useValue: config },
      { provide: HEAD_SIGNAL, useValue: createHeadSignal() },
      {
        provide: SEALED_EVENT_STORE,
        useFactory: (signal: HeadSignal): EventStore =>
          withAppendSignal(storeFactory(config, signal), signal),
        inject: [HEAD_SIGNAL],
      },
      { provide: KEY_STORE, useFactory: (): KeyStore => createKeyStore(config) },
      {
        provide: EVENT_STORE,
        useFactory: (sealed: EventStore, keys: KeyStore): EventStore =>
          withContentEncryption(sealed, keys, config),
        inject: [SEALED_EVENT_STORE, KEY_STORE],
      },
      StoreLifecycle,
      { provide: IDEMPOTENCY_STORE, useFactory: () => createIdempotencyStore(config) },
      { provide: IDEMPOTENCY_MEMOS, useExisting: IDEMPOTENCY_STORE },
      IdempotencyLifecycle,
      MetricsService,
      TenantDirectoryService,
      AdminReadsService,
      ConversationRepository,
      ReadModelsService,
      ConversationWriter,
      ...COMMAND_HANDLERS,
      ...QUERY_HANDLERS,
      ...READ_MODEL_ADMIN_HANDLERS,
      ContextService,
      AssemblyPool,
      HeavyWorkGate,
      ...CONTEXT_HANDLERS,
      MoveTipWithSummaryHandler,
      ...DRAFT_HANDLERS,
      ...TENANT_COMMAND_HANDLERS,
      ...TENANT_QUERY_HANDLERS,
      ...ADMIN_READ_HANDLERS,
      renderPagesProvider,
      summarizeProvider,
      summarizeBranchProvider,
      ReplayService,
      ...REPLAY_QUERY_HANDLERS,
      ...AUDIT_QUERY_HANDLERS,
      ...ERASURE_COMMAND_HANDLERS,
      ErasureService,
      { provide: PROJECTED_SIGNALS, useValue: new InProcessProjectedSignals() },
      ConversationStreamsService,
      RateLimiterService,
    ];
    return {
      module: ApplicationModule,
      global: true,
      imports: [CqrsModule.forRoot()],
      providers,
      exports: [
        CqrsModule,
        ARBOR_CONFIG,
        EVENT_STORE,
        SEALED_EVENT_STORE,
        KEY_STORE,
        IDEMPOTENCY_STORE,
        IDEMPOTENCY_MEMOS,
        TenantDirectoryService,
        AdminReadsService,
        ConversationRepository,
        ReadModelsService,
        ContextService,
        AssemblyPool,
        HeavyWorkGate,
        ReplayService,
        ErasureService,
        PROJECTED_SIGNALS,
        ConversationStreamsService,
        MetricsService,
        RateLimiterService,
      ],
    };
  }
}
