import {
  Body,
  Controller,
  Delete,
  HttpCode,
  Post,
  Put,
  Query as QueryParams,
  UseGuards,
} from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { EraseConversation, EraseTenant, SetRetention, SweepRetention } from '@arbor/application';
import {
  EraseBody,
  EraseConversationQuery,
  EraseTenantQuery,
  RetentionBody,
} from '@arbor/contract';
import { AdminGuard } from '../auth/admin.guard';
import { AuthGuard } from '../auth/auth.guard';
import { type Caller, CallerParam } from '../auth/caller';
import { Idempotency } from '../idempotency/idempotency';
import { parseOrThrow } from '../validation/zod';
import { IdParam } from '../validation/id-param';

/** `DELETE /v1/conversations/{id}`: erase one conversation (its own tenant's key). */
@UseGuards(AuthGuard)
@Controller('v1/conversations')
export class EraseConversationController {
  constructor(
    private readonly commands: CommandBus,
    private readonly idempotency: Idempotency,
  ) {}

  @Delete(':id')
  @HttpCode(200)
  async erase(
    @IdParam('id') id: string,
    @QueryParams() query: unknown,
    @Body() body: unknown,
    @CallerParam() caller: Caller,
  ) {
    const q = parseOrThrow(EraseConversationQuery, query ?? {}, 'query');
    const b = parseOrThrow(EraseBody, body ?? {});
    const result = await this.commands.execute(
      new EraseConversation(caller, id, q.reason ?? b.reason ?? 'erasure requested', q.forks),
    );
    // Stored answers of retried requests may quote the conversation (titles, failed inputs).
    this.idempotency.store.forgetTenant(caller.tenantId);
    return result;
  }
}

/** Tenant erasure, retention policy and the sweep (admin). */
@UseGuards(AdminGuard)
@Controller('v1')
export class ErasureAdminController {
  constructor(
    private readonly commands: CommandBus,
    private readonly idempotency: Idempotency,
  ) {}

  @Delete('tenants/:tenantId')
  @HttpCode(200)
  async eraseTenant(
    @IdParam('tenantId') tenantId: string,
    @QueryParams() query: unknown,
    @CallerParam() caller: Caller,
  ) {
    const q = parseOrThrow(EraseTenantQuery, query ?? {}, 'query');
    const result = await this.commands.execute(
      new EraseTenant(tenantId, q.reason ?? 'tenant erased', caller.actor),
    );
    this.idempotency.store.forgetTenant(tenantId);
    return result;
  }

  @Put('tenants/:tenantId/retention')
  async setRetention(
    @IdParam('tenantId') tenantId: string,
    @Body() body: unknown,
    @CallerParam() caller: Caller,
  ) {
    const { retentionDays } = parseOrThrow(RetentionBody, body);
    const set = await this.commands.execute(new SetRetention(tenantId, retentionDays, caller));
    return { tenantId, retentionDays: set.retentionDays };
  }

  @Post('admin/retention/sweep')
  @HttpCode(200)
  async sweep(@CallerParam() caller: Caller) {
    const result = await this.commands.execute(new SweepRetention(caller.actor));
    for (const tenantId of new Set(result.erased.map((e) => e.tenantId))) {
      this.idempotency.store.forgetTenant(tenantId);
    }
    return result;
  }
}
