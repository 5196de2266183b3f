import { Controller, Get, Query as QueryParams, UseGuards } from '@nestjs/common';
import { AuthGuard } from '../auth/auth.guard';
import { type Caller, CallerParam } from '../auth/caller';
import { IdParam } from '../validation/id-param';
import { ReplayReads } from './replay-reads';

@UseGuards(AuthGuard)
@Controller('v1/conversations/:id')
export class ReplayController {
  constructor(private readonly reads: ReplayReads) {}

  @Get('replay')
  replay(@IdParam('id') id: string, @QueryParams() query: unknown, @CallerParam() caller: Caller) {
    return this.reads.replay(id, query, caller);
  }

  @Get('contexts')
  contexts(
    @IdParam('id') id: string,
    @QueryParams() query: unknown,
    @CallerParam() caller: Caller,
  ) {
    return this.reads.contexts(id, query, caller);
  }

  @Get('contexts/:contextId')
  reproduce(
    @IdParam('id') id: string,
    @IdParam('contextId') contextId: string,
    @CallerParam() caller: Caller,
  ) {
    return this.reads.reproduce(id, contextId, caller);
  }
}
