import { Controller, Get, UseGuards } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { VerifyConversation } from '@arbor/application';
import { AuthGuard } from '../auth/auth.guard';
import { type Caller, CallerParam } from '../auth/caller';
import { IdParam } from '../validation/id-param';

/**
 * The hash-chain verdict of one conversation, for its own tenant (`VerifyConversation`). The
 * route and its answer are in @arbor/contract (console-routes.ts).
 */
@UseGuards(AuthGuard)
@Controller('v1/conversations')
export class VerifyController {
  constructor(private readonly queries: QueryBus) {}

  @Get(':id/verify')
  verify(@IdParam('id') id: string, @CallerParam() caller: Caller) {
    return this.queries.execute(new VerifyConversation(caller, id));
  }
}
