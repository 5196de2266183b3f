import { inSpan } from '../tracing/tracing';
import { Injectable } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  type CommitTurnCommand,
  type Command as DomainCommand,
  type ConversationState,
  type ForkCommand,
  getTurn,
  ID_RULE,
  isId,
  type MoveTipCommand,
  type RecordFailureCommand,
  type ResultOf,
  type ResumeCommand,
  type RewindCommand,
  type SetCheckpointCommand,
  type StartCommand,
} from '@arbor/domain';
import { type Caller } from '../caller';
import { validationFailed } from '../errors';
import { ConversationRepository, type Executed } from './conversation.repository';
import { ReadModelsService } from './read-models.service';
import { MetricsService } from '../metrics/metrics.service';

export type Fields<C extends DomainCommand> = Omit<C, 'type'>;

export abstract class ConversationWrite<R> extends Command<Executed<R>> {
  constructor(
    readonly caller: Caller,
    readonly conversationId: string,
  ) {
    super();
  }
}

export class StartConversation extends ConversationWrite<ResultOf<'start'>> {
  constructor(
    caller: Caller,
    conversationId: string,
    readonly input: Omit<Fields<StartCommand>, 'conversationId'>,
  ) {
    super(caller, conversationId);
  }
}

export class CommitTurn extends ConversationWrite<ResultOf<'commitTurn'>> {
  constructor(
    caller: Caller,
    conversationId: string,
    /** `parentId` undefined: chain from the tip as it is when the command runs. */
    readonly input: Omit<Fields<CommitTurnCommand>, 'parentId'> & { parentId?: string | null },
  ) {
    super(caller, conversationId);
  }
}

export class MoveTip extends ConversationWrite<ResultOf<'moveTip'>> {
  constructor(
    caller: Caller,
    conversationId: string,
    readonly input: Fields<MoveTipCommand>,
  ) {
    super(caller, conversationId);
  }
}

export class ForkConversation extends ConversationWrite<ResultOf<'fork'>> {
  constructor(
    caller: Caller,
    conversationId: string,
    readonly input: Omit<Fields<ForkCommand>, 'path'>,
  ) {
    super(caller, conversationId);
  }
}

export class SetCheckpoint extends ConversationWrite<ResultOf<'setCheckpoint'>> {
  constructor(
    caller: Caller,
    conversationId: string,
    readonly input: Fields<SetCheckpointCommand>,
  ) {
    super(caller, conversationId);
  }
}

export class RewindToCheckpoint extends ConversationWrite<ResultOf<'rewind'>> {
  constructor(
    caller: Caller,
    conversationId: string,
    readonly input: Fields<RewindCommand>,
  ) {
    super(caller, conversationId);
  }
}

export class Resume extends ConversationWrite<ResultOf<'resume'>> {
  constructor(
    caller: Caller,
    conversationId: string,
    readonly input: Fields<ResumeCommand>,
  ) {
    super(caller, conversationId);
  }
}

export class RecordFailure extends ConversationWrite<ResultOf<'recordFailure'>> {
  constructor(
    caller: Caller,
    conversationId: string,
    readonly input: Fields<RecordFailureCommand>,
  ) {
    super(caller, conversationId);
  }
}

@Injectable()
export class ConversationWriter {
  constructor(
    private readonly repository: ConversationRepository,
    private readonly readModels: ReadModelsService,
  ) {}

  private checkId(conversationId: string): void {
    if (!isId(conversationId))
      throw validationFailed([{ path: 'conversationId', code: 'invalid_id', message: ID_RULE }]);
  }

  private async noted<R>(caller: Caller, executed: Executed<R>): Promise<Executed<R>> {
    await this.readModels.noteWrite(caller.keyId, executed.position);
    return executed;
  }

  async write<C extends Exclude<DomainCommand, ForkCommand>>(
    caller: Caller,
    conversationId: string,
    command: C | ((state: ConversationState) => C),
  ): Promise<Executed<ResultOf<C['type']>>> {
    this.checkId(conversationId);
    return this.noted(caller, await this.repository.execute(caller, conversationId, command));
  }

  async fork(
    caller: Caller,
    conversationId: string,
    command: Omit<ForkCommand, 'path'>,
  ): Promise<Executed<ResultOf<'fork'>>> {
    this.checkId(conversationId);
    return this.noted(caller, await this.repository.fork(caller, conversationId, command));
  }
}

@CommandHandler(StartConversation)
export class StartConversationHandler implements ICommandHandler<StartConversation> {
  constructor(private readonly writer: ConversationWriter) {}
  execute({ caller, conversationId, input }: StartConversation) {
    return this.writer.write(caller, conversationId, { type: 'start', conversationId, ...input });
  }
}

@CommandHandler(CommitTurn)
export class CommitTurnHandler implements ICommandHandler<CommitTurn> {
  constructor(
    private readonly writer: ConversationWriter,
    private readonly metrics: MetricsService,
  ) {}
  execute(command: CommitTurn) {
    const attributes = {
      'arbor.tenant_id': command.caller.tenantId,
      'arbor.conversation_id': command.conversationId,
    };
    return inSpan('arbor.turn.commit', attributes, async (span) => {
      const done = await this.commit(command);
      this.metrics.countTurn(done.result.replayed);
      span?.setAttribute('arbor.turn.replayed', done.result.replayed);
      return done;
    });
  }
  private commit({ caller, conversationId, input }: CommitTurn) {
    const { parentId, ...turn } = input;
    if (parentId !== undefined)
      return this.writer.write(caller, conversationId, { type: 'commitTurn', ...turn, parentId });
    // A retried turnId chains from the tip it had then, or the same request would hash differently.
    return this.writer.write(caller, conversationId, (state) => {
      const known = turn.turnId === undefined ? undefined : getTurn(state, turn.turnId);
      return {
        type: 'commitTurn',
        ...turn,
        parentId: known === undefined ? state.tip : known.parentId,
      };
    });
  }
}

@CommandHandler(MoveTip)
export class MoveTipHandler implements ICommandHandler<MoveTip> {
  constructor(private readonly writer: ConversationWriter) {}
  execute({ caller, conversationId, input }: MoveTip) {
    return this.writer.write(caller, conversationId, { type: 'moveTip', ...input });
  }
}

@CommandHandler(ForkConversation)
export class ForkConversationHandler implements ICommandHandler<ForkConversation> {
  constructor(private readonly writer: ConversationWriter) {}
  execute({ caller, conversationId, input }: ForkConversation) {
    return this.writer.fork(caller, conversationId, { type: 'fork', ...input });
  }
}

@CommandHandler(SetCheckpoint)
export class SetCheckpointHandler implements ICommandHandler<SetCheckpoint> {
  constructor(private readonly writer: ConversationWriter) {}
  execute({ caller, conversationId, input }: SetCheckpoint) {
    return this.writer.write(caller, conversationId, { type: 'setCheckpoint', ...input });
  }
}

@CommandHandler(RewindToCheckpoint)
export class RewindToCheckpointHandler implements ICommandHandler<RewindToCheckpoint> {
  constructor(private readonly writer: ConversationWriter) {}
  execute({ caller, conversationId, input }: RewindToCheckpoint) {
    return this.writer.write(caller, conversationId, { type: 'rewind', ...input });
  }
}

@CommandHandler(Resume)
export class ResumeHandler implements ICommandHandler<Resume> {
  constructor(private readonly writer: ConversationWriter) {}
  execute({ caller, conversationId, input }: Resume) {
    return this.writer.write(caller, conversationId, { type: 'resume', ...input });
  }
}

@CommandHandler(RecordFailure)
export class RecordFailureHandler implements ICommandHandler<RecordFailure> {
  constructor(private readonly writer: ConversationWriter) {}
  execute({ caller, conversationId, input }: RecordFailure) {
    return this.writer.write(caller, conversationId, { type: 'recordFailure', ...input });
  }
}

export const COMMAND_HANDLERS = [
  StartConversationHandler,
  CommitTurnHandler,
  MoveTipHandler,
  ForkConversationHandler,
  SetCheckpointHandler,
  RewindToCheckpointHandler,
  ResumeHandler,
  RecordFailureHandler,
];
