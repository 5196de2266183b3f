import {
  Command,
  CommandHandler,
  type ICommandHandler,
  type IQueryHandler,
  Query,
  QueryHandler,
} from '@nestjs/cqrs';
import { type CapabilityOverrides, type ProviderName } from '@arbor/context';
import { type CompactionDecision } from '@arbor/domain';
import { type Caller } from '../caller';
import { ConversationWriter } from '../conversations/commands';
import { ConversationRepository } from '../conversations/conversation.repository';
import { conversationNotFound } from '../errors';
import { type ContextRequest, ContextService } from './context.service';

export class BuildContext extends Command<Awaited<ReturnType<ContextService['build']>>> {
  constructor(
    readonly caller: Caller,
    readonly conversationId: string,
    readonly request: ContextRequest,
  ) {
    super();
  }
}

export class RevokeCompaction extends Command<{
  decisionId: string;
  status: 'revoked';
  revision: number;
  replayed: boolean;
}> {
  constructor(
    readonly caller: Caller,
    readonly conversationId: string,
    readonly decisionId: string,
    readonly reason?: string,
  ) {
    super();
  }
}

/** What fills the window now, by kind; records nothing. */
export class GetContextReport extends Query<Awaited<ReturnType<ContextService['report']>>> {
  constructor(
    readonly caller: Caller,
    readonly conversationId: string,
    readonly provider: ProviderName,
    readonly model: string,
    readonly overrides: CapabilityOverrides = {},
  ) {
    super();
  }
}

export class ListCompactions extends Query<{
  items: { decision: CompactionDecision; status: 'revoked' | 'in_force' }[];
}> {
  constructor(
    readonly caller: Caller,
    readonly conversationId: string,
  ) {
    super();
  }
}

@CommandHandler(BuildContext)
export class BuildContextHandler implements ICommandHandler<BuildContext> {
  constructor(private readonly context: ContextService) {}
  execute(c: BuildContext) {
    return this.context.build(c.caller, c.conversationId, c.request);
  }
}

@CommandHandler(RevokeCompaction)
export class RevokeCompactionHandler implements ICommandHandler<RevokeCompaction> {
  constructor(private readonly writer: ConversationWriter) {}
  async execute(c: RevokeCompaction) {
    const { result } = await this.writer.write(c.caller, c.conversationId, {
      type: 'revokeCompaction',
      decisionId: c.decisionId,
      reason: c.reason ?? null,
    });
    return {
      decisionId: result.decisionId,
      status: 'revoked' as const,
      revision: result.revision,
      replayed: result.replayed,
    };
  }
}

@QueryHandler(GetContextReport)
export class GetContextReportHandler implements IQueryHandler<GetContextReport> {
  constructor(private readonly context: ContextService) {}
  execute(q: GetContextReport) {
    return this.context.report(q.caller, q.conversationId, q.provider, q.model, q.overrides);
  }
}

@QueryHandler(ListCompactions)
export class ListCompactionsHandler implements IQueryHandler<ListCompactions> {
  constructor(private readonly repository: ConversationRepository) {}
  async execute(q: ListCompactions) {
    const state = await this.repository.load(q.caller.tenantId, q.conversationId);
    if (state.status === 'none') throw conversationNotFound();
    const revoked = new Set(state.revokedCompactions);
    return {
      items: state.compactions.map((decision) => ({
        decision,
        status: revoked.has(decision.id) ? ('revoked' as const) : ('in_force' as const),
      })),
    };
  }
}

export const CONTEXT_HANDLERS = [
  BuildContextHandler,
  RevokeCompactionHandler,
  GetContextReportHandler,
  ListCompactionsHandler,
];
