import {
  Command,
  CommandHandler,
  type ICommandHandler,
  type IQueryHandler,
  Query,
  QueryHandler,
} from '@nestjs/cqrs';
import { type Caller } from '../caller';
import { ErasureService } from '../erasure/erasure.service';
import { AdminReadsService } from './admin-reads.service';

export class RecordAdminRead extends Command<Caller> {
  constructor(
    readonly tenantId: string,
    readonly route: string,
    readonly conversationId: string | null,
    readonly correlationId: string | undefined,
  ) {
    super();
  }
}

export class CheckNotErased extends Query<void> {
  constructor(
    readonly tenantId: string,
    readonly conversationId: string,
  ) {
    super();
  }
}

@CommandHandler(RecordAdminRead)
export class RecordAdminReadHandler implements ICommandHandler<RecordAdminRead> {
  constructor(private readonly reads: AdminReadsService) {}
  execute(c: RecordAdminRead) {
    return this.reads.record(
      c.tenantId,
      { route: c.route, conversationId: c.conversationId },
      c.correlationId,
    );
  }
}

@QueryHandler(CheckNotErased)
export class CheckNotErasedHandler implements IQueryHandler<CheckNotErased> {
  constructor(private readonly erasure: ErasureService) {}
  execute(q: CheckNotErased) {
    return this.erasure.assertNotErased(q.tenantId, q.conversationId);
  }
}

export const ADMIN_READ_HANDLERS = [RecordAdminReadHandler, CheckNotErasedHandler];
