import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { type EventStore } from '@arbor/event-store';
import { ContextModule } from './context/context.module';
import { ConversationsModule } from './conversations/conversations.module';
import { ARBOR_CONFIG, type ArborConfig } from './config/config';
import { HealthController } from './health/health.controller';
import { AuthGuard } from './auth/auth.guard';
import { AdminGuard } from './auth/admin.guard';
import { TenantDirectoryService } from './tenants/tenant-directory.service';
import { TenantsController } from './tenants/tenants.controller';
import { ProblemFilter } from './problem/problem.filter';
import { FieldLimits } from './limits/field-limits';
import { Cursors } from './conversations/cursor';
import { Idempotency } from './idempotency/idempotency';
import { ReplayModule } from './replay/replay.module';
import { SettingsController } from './settings/settings.controller';
import { createEventStore, EVENT_STORE, StoreLifecycle } from './store/store.provider';

/** Builds the event log from the config; tests pass one to wrap the real store (fault injection). */
export type StoreFactory = (config: ArborConfig) => EventStore;

@Module({})
export class AppModule {
  static forRoot(
    config: ArborConfig,
    storeFactory: StoreFactory = createEventStore,
  ): DynamicModule {
    return {
      module: AppModule,
      global: true,
      imports: [CqrsModule.forRoot(), ConversationsModule, ContextModule, ReplayModule],
      controllers: [HealthController, TenantsController, SettingsController],
      providers: [
        { provide: ARBOR_CONFIG, useValue: config },
        { provide: EVENT_STORE, useFactory: (): EventStore => storeFactory(config) },
        { provide: APP_FILTER, useClass: ProblemFilter },
        TenantDirectoryService,
        AuthGuard,
        AdminGuard,
        StoreLifecycle,
        FieldLimits,
        Cursors,
        Idempotency,
      ],
      exports: [
        ARBOR_CONFIG,
        EVENT_STORE,
        TenantDirectoryService,
        AuthGuard,
        FieldLimits,
        Cursors,
        Idempotency,
      ],
    };
  }
}
