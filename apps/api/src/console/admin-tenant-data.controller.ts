import { Controller, Get, Inject, Query as QueryParams, Res, UseGuards } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { FastifyReply } from 'fastify';
import {
  AdminReadsService,
  ARBOR_CONFIG,
  type ArborConfig,
  BranchSummaryService,
  ErasureService,
  SEALED_EVENT_STORE,
} from '@arbor/application';
import { type EventStore } from '@arbor/event-store';
import { AdminGuard } from '../auth/admin.guard';
import { type Caller, CallerParam } from '../auth/caller';
import { ConversationsController } from '../conversations/conversations.controller';
import { Cursors } from '../conversations/cursor';
import { FieldLimits } from '../limits/field-limits';
import { ReplayController } from '../replay/replay.controller';
import { VerifyController } from './verify.controller';
import { IdParam } from '../validation/id-param';
import { TurnBodies } from '../validation/turn-body';

const BASE = '/v1/admin/tenants/{tenantId}/conversations';

/** As for the tenant (AuthGuard): the log's own views of an erased conversation stay readable. */
const AUDIT_ROUTES: ReadonlySet<string> = new Set(['/{id}/events', '/{id}/replay']);

/**
 * The admin's own read-only routes to one tenant's data,
 * `GET /v1/admin/tenants/{tenantId}/conversations…`: the tenant routes' answers (the same
 * controllers' code over the same application queries, run as that tenant with actor `admin`),
 * each read recorded first as an `AdminDataRead` event in the tenant's
 * `audit-<tenantId>.admin-reads` stream (AdminReadsService). Writes stay with the tenant's keys.
 * A tenant key is refused like every admin route (401); an unknown tenant is `404 tenant_not_found`.
 */
@UseGuards(AdminGuard)
@Controller('v1/admin/tenants/:tenantId/conversations')
export class AdminTenantDataController {
  private readonly conversations: ConversationsController;
  private readonly replays: ReplayController;
  private readonly verifier: VerifyController;

  constructor(
    private readonly reads: AdminReadsService,
    private readonly erasure: ErasureService,
    commands: CommandBus,
    queries: QueryBus,
    branchSummaries: BranchSummaryService,
    cursors: Cursors,
    fields: FieldLimits,
    turnBodies: TurnBodies,
    @Inject(ARBOR_CONFIG) config: ArborConfig,
    @Inject(SEALED_EVENT_STORE) sealed: EventStore,
  ) {
    this.conversations = new ConversationsController(
      commands,
      queries,
      branchSummaries,
      config,
      fields,
      turnBodies,
      cursors,
    );
    this.replays = new ReplayController(queries, cursors, config);
    this.verifier = new VerifyController(queries, sealed, config);
  }

  /**
   * Records the read (the ids are valid: `@IdParam`), and returns the tenant caller to answer it
   * as. A conversation the tenant erased answers 410 here too, on the routes where it does for
   * the tenant.
   */
  private async as(
    admin: Caller,
    tenantId: string,
    route: string,
    conversationId: string | null,
  ): Promise<Caller> {
    const caller = await this.reads.record(
      tenantId,
      { route: `GET ${BASE}${route}`, conversationId },
      admin.correlationId,
    );
    if (conversationId !== null && !AUDIT_ROUTES.has(route)) {
      await this.erasure.assertNotErased(tenantId, conversationId);
    }
    return caller;
  }

  @Get()
  async list(
    @IdParam('tenantId') tenantId: string,
    @QueryParams() query: unknown,
    @CallerParam() admin: Caller,
  ) {
    return this.conversations.list(query, await this.as(admin, tenantId, '', null));
  }

  @Get(':id')
  async get(
    @IdParam('tenantId') t: string,
    @IdParam('id') id: string,
    @CallerParam() admin: Caller,
  ) {
    return this.conversations.get(id, await this.as(admin, t, '/{id}', id));
  }

  @Get(':id/tree')
  async tree(
    @IdParam('tenantId') t: string,
    @IdParam('id') id: string,
    @CallerParam() admin: Caller,
  ) {
    return this.conversations.tree(id, await this.as(admin, t, '/{id}/tree', id));
  }

  @Get(':id/messages')
  async messages(
    @IdParam('tenantId') t: string,
    @IdParam('id') id: string,
    @QueryParams() query: unknown,
    @CallerParam() admin: Caller,
  ) {
    return this.conversations.messages(id, query, await this.as(admin, t, '/{id}/messages', id));
  }

  @Get(':id/messages/:messageId')
  async message(
    @IdParam('tenantId') t: string,
    @IdParam('id') id: string,
    @IdParam('messageId') messageId: string,
    @CallerParam() admin: Caller,
  ) {
    const caller = await this.as(admin, t, '/{id}/messages/{messageId}', id);
    return this.conversations.message(id, messageId, caller);
  }

  @Get(':id/checkpoints')
  async checkpoints(
    @IdParam('tenantId') t: string,
    @IdParam('id') id: string,
    @CallerParam() admin: Caller,
  ) {
    return this.conversations.listCheckpoints(id, await this.as(admin, t, '/{id}/checkpoints', id));
  }

  @Get(':id/events')
  async events(
    @IdParam('tenantId') t: string,
    @IdParam('id') id: string,
    @QueryParams() query: unknown,
    @CallerParam() admin: Caller,
  ) {
    return this.conversations.events(id, query, await this.as(admin, t, '/{id}/events', id));
  }

  @Get(':id/export')
  async export(
    @IdParam('tenantId') t: string,
    @IdParam('id') id: string,
    @QueryParams() query: unknown,
    @CallerParam() admin: Caller,
    @Res() reply: FastifyReply,
  ) {
    const caller = await this.as(admin, t, '/{id}/export', id);
    return this.conversations.export(id, query, caller, reply);
  }

  @Get(':id/verify')
  async verify(
    @IdParam('tenantId') t: string,
    @IdParam('id') id: string,
    @CallerParam() admin: Caller,
  ) {
    return this.verifier.verify(id, await this.as(admin, t, '/{id}/verify', id));
  }

  @Get(':id/replay')
  async replay(
    @IdParam('tenantId') t: string,
    @IdParam('id') id: string,
    @QueryParams() query: unknown,
    @CallerParam() admin: Caller,
  ) {
    return this.replays.replay(id, query, await this.as(admin, t, '/{id}/replay', id));
  }

  @Get(':id/contexts')
  async contexts(
    @IdParam('tenantId') t: string,
    @IdParam('id') id: string,
    @QueryParams() query: unknown,
    @CallerParam() admin: Caller,
  ) {
    return this.replays.contexts(id, query, await this.as(admin, t, '/{id}/contexts', id));
  }

  @Get(':id/contexts/:contextId')
  async context(
    @IdParam('tenantId') t: string,
    @IdParam('id') id: string,
    @IdParam('contextId') contextId: string,
    @CallerParam() admin: Caller,
  ) {
    const caller = await this.as(admin, t, '/{id}/contexts/{contextId}', id);
    return this.replays.reproduce(id, contextId, caller);
  }
}
