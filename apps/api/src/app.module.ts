import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ApplicationModule, type ArborConfig, type StoreFactory } from '@arbor/application';
import { CompactionsController, ContextController } from './context/context.controller';
import { AdminController } from './conversations/admin.controller';
import { ConversationsController } from './conversations/conversations.controller';
import { StreamController } from './conversations/stream.controller';
import { DraftsController } from './conversations/drafts.controller';
import { AdminTenantsController } from './console/admin-tenants.controller';
import { VerifyController } from './console/verify.controller';
import { AdminTenantDataController } from './console/admin-tenant-data.controller';
import { HealthController } from './health/health.controller';
import { AuthGuard } from './auth/auth.guard';
import { AdminGuard } from './auth/admin.guard';
import { TenantsController } from './tenants/tenants.controller';
import { ProblemFilter } from './problem/problem.filter';
import { ReplayController } from './replay/replay.controller';
import { SettingsController } from './settings/settings.controller';
import { FieldLimits } from './limits/field-limits';
import { TurnBodies } from './validation/turn-body';
import { Cursors } from './conversations/cursor';
import { ConversationReads } from './conversations/conversation-reads';
import { ReplayReads } from './replay/replay-reads';
import { Idempotency } from './idempotency/idempotency';
import { EraseConversationController, ErasureAdminController } from './erasure/erasure.controller';
import { MetricsController } from './observability/metrics.controller';
import { MetricsPort } from './observability/metrics-port';

export type { StoreFactory };

/** The HTTP edge: controllers, guards and the problem filter over the application layer. */
@Module({})
export class AppModule {
  static forRoot(config: ArborConfig, storeFactory?: StoreFactory): DynamicModule {
    return {
      module: AppModule,
      global: true,
      imports: [ApplicationModule.forRoot(config, storeFactory)],
      controllers: [
        HealthController,
        TenantsController,
        SettingsController,
        ConversationsController,
        StreamController,
        AdminController,
        ContextController,
        DraftsController,
        CompactionsController,
        ReplayController,
        VerifyController,
        AdminTenantsController,
        AdminTenantDataController,
        EraseConversationController,
        ErasureAdminController,
        MetricsController,
      ],
      providers: [
        { provide: APP_FILTER, useClass: ProblemFilter },
        AuthGuard,
        AdminGuard,
        FieldLimits,
        TurnBodies,
        Cursors,
        ConversationReads,
        ReplayReads,
        Idempotency,
        MetricsPort,
      ],
      exports: [AuthGuard, FieldLimits, TurnBodies, Cursors, Idempotency],
    };
  }
}
