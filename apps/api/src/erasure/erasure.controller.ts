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
import { parseOrThrow } from '../validation/zod';
import { IdParam } from '../validation/id-param';

/** `DELETE /v1/conversations/{id}`: erase one conversation (its own tenant's key). */
@UseGuards(AuthGuard)
@Controller('v1/conversations')
export class EraseConversationController {
  constructor(private readonly commands: CommandBus) {}

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
    return this.commands.execute(
      new EraseConversation(caller, id, q.reason ?? b.reason ?? 'erasure requested', q.forks),
    );
  }
}

/** Tenant erasure, retention policy and the sweep (admin). */
@UseGuards(AdminGuard)
@Controller('v1')
export class ErasureAdminController {
  constructor(private readonly commands: CommandBus) {}

  @Delete('tenants/:tenantId')
  @HttpCode(200)
  async eraseTenant(
    @IdParam('tenantId') tenantId: string,
    @QueryParams() query: unknown,
    @CallerParam() caller: Caller,
  ) {
    const q = parseOrThrow(EraseTenantQuery, query ?? {}, 'query');
    return this.commands.execute(
      new EraseTenant(tenantId, q.reason ?? 'tenant erased', caller.actor),
    );
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
    return this.commands.execute(new SweepRetention(caller.actor));
  }
}
