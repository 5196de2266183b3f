import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { type EventStore } from '@arbor/event-store';
import { ARBOR_CONFIG, type ArborConfig } from './config/config';
import { renderPagesProvider, summarizeProvider } from './context/context.providers';
import { ContextService } from './context/context.service';
import { DraftService } from './drafts/draft.service';
import { COMMAND_HANDLERS, ConversationWriter } from './conversations/commands';
import { ConversationRepository } from './conversations/conversation.repository';
import { QUERY_HANDLERS } from './conversations/queries';
import { ReadModelsService } from './conversations/read-models.service';
import { REPLAY_QUERY_HANDLERS } from './replay/queries';
import { ReplayService } from './replay/replay.service';
import { createEventStore, EVENT_STORE, StoreLifecycle } from './store/store.provider';
import { TenantDirectoryService } from './tenants/tenant-directory.service';

/** Builds the event log from the config; tests pass one to wrap the real store (fault injection). */
export type StoreFactory = (config: ArborConfig) => EventStore;

/**
 * The application layer as one Nest module, with no edge in it: the HTTP app imports it and adds
 * controllers, guards and the problem filter; the embedded CLI boots it alone as an application
 * context. Global, so an edge's controllers can inject its services.
 */
@Module({})
export class ApplicationModule {
  static forRoot(
    config: ArborConfig,
    storeFactory: StoreFactory = createEventStore,
  ): DynamicModule {
    const providers: Provider[] = [
      { provide: ARBOR_CONFIG, useValue: config },
      { provide: EVENT_STORE, useFactory: (): EventStore => storeFactory(config) },
      StoreLifecycle,
      TenantDirectoryService,
      ConversationRepository,
      ReadModelsService,
      ConversationWriter,
      ...COMMAND_HANDLERS,
      ...QUERY_HANDLERS,
      ContextService,
      DraftService,
      renderPagesProvider,
      summarizeProvider,
      ReplayService,
      ...REPLAY_QUERY_HANDLERS,
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
        TenantDirectoryService,
        ConversationRepository,
        ReadModelsService,
        ContextService,
        DraftService,
        ReplayService,
      ],
    };
  }
}
