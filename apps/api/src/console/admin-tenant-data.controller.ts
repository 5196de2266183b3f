import { Controller, Get, Query as QueryParams, Res, UseGuards } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { FastifyReply } from 'fastify';
import { CheckNotErased, RecordAdminRead, VerifyConversation } from '@arbor/application';
import { AdminGuard } from '../auth/admin.guard';
import { type Caller, CallerParam } from '../auth/caller';
import { ConversationReads } from '../conversations/conversation-reads';
import { ReplayReads } from '../replay/replay-reads';
import { IdParam } from '../validation/id-param';

const BASE = '/v1/admin/tenants/{tenantId}/conversations';

/** As for the tenant (AuthGuard): the log's own views of an erased conversation stay readable. */
const AUDIT_ROUTES: ReadonlySet<string> = new Set(['/{id}/events', '/{id}/replay']);

/**
 * The admin's own read-only routes to one tenant's data,
 * `GET /v1/admin/tenants/{tenantId}/conversations…`: the tenant routes' answers (the same
 * answers' code, ConversationReads and ReplayReads, over the same application queries, run as that tenant with actor `admin`),
 * each read recorded first as an `AdminDataRead` event in the tenant's
 * `audit-<tenantId>.admin-reads` stream (RecordAdminRead). Writes stay with the tenant's keys.
 * A tenant key is refused like every admin route (401); an unknown tenant is `404 tenant_not_found`.
 */
@UseGuards(AdminGuard)
@Controller('v1/admin/tenants/:tenantId/conversations')
export class AdminTenantDataController {
  constructor(
    private readonly commands: CommandBus,
    private readonly conversations: ConversationReads,
    private readonly replays: ReplayReads,
    private readonly queries: QueryBus,
  ) {}

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
    const caller = await this.commands.execute(
      new RecordAdminRead(tenantId, `GET ${BASE}${route}`, conversationId, admin.correlationId),
    );
    if (conversationId !== null && !AUDIT_ROUTES.has(route)) {
      await this.queries.execute(new CheckNotErased(tenantId, conversationId));
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
    return this.queries.execute(
      new VerifyConversation(await this.as(admin, t, '/{id}/verify', id), id),
    );
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
