import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  type Command as DomainCommand,
  type ConversationState,
  forkPathIds,
  getTurn,
  type ResultOf,
} from '@arbor/domain';
import { type Caller } from '../caller';
import { AppError } from '../errors';
import { ConversationRepository, type Executed } from './conversation.repository';
import { ReadModelsService } from './read-models.service';

/**
 * Every write to a conversation is one of the domain's commands; this wraps it for the bus with
 * who asked and for which conversation. The handler decides, appends atomically, and records the
 * position so the caller's next read sees the write.
 */
export interface CommandOptions {
  /** commitTurn without a parentId: chain from the tip as it is when the command runs. */
  parentFromTip?: boolean;
}

export class ConversationCommand<C extends DomainCommand> extends Command<
  Executed<ResultOf<C['type']>>
> {
  constructor(
    readonly caller: Caller,
    readonly conversationId: string,
    readonly command: C,
    readonly options: CommandOptions = {},
  ) {
    super();
  }
}

@CommandHandler(ConversationCommand)
export class ConversationCommandHandler implements ICommandHandler<
  ConversationCommand<DomainCommand>
> {
  constructor(
    private readonly repository: ConversationRepository,
    private readonly readModels: ReadModelsService,
  ) {}

  /** Completes a command with what only the current state knows, under the conversation's lock. */
  private preparer({
    caller,
    conversationId,
    command,
    options,
  }: ConversationCommand<DomainCommand>):
    ((state: ConversationState) => Promise<DomainCommand>) | undefined {
    if (command.type === 'fork') {
      return async (state) => {
        // A fork copies content, which the write-side state does not hold: load the path.
        const ids = forkPathIds(state, command.messageId);
        if (ids === null) {
          throw new AppError(
            'message_not_found',
            `no message ${command.messageId} in this conversation`,
          );
        }
        const path = await this.repository.messagesById(caller.tenantId, conversationId, ids);
        return { ...command, path };
      };
    }
    if (command.type === 'commitTurn' && options.parentFromTip) {
      // A retry of a committed turnId chained from the tip it had then, not from the tip it made:
      // otherwise the same request would hash differently and answer turn_id_conflict.
      return async (state) => {
        const known = command.turnId === undefined ? undefined : getTurn(state, command.turnId);
        return { ...command, parentId: known === undefined ? state.tip : known.parentId };
      };
    }
    return undefined;
  }

  async execute(cmd: ConversationCommand<DomainCommand>) {
    const executed = await this.repository.execute(
      cmd.caller,
      cmd.conversationId,
      cmd.command,
      this.preparer(cmd),
    );
    this.readModels.noteWrite(cmd.caller.keyId, executed.position);
    return executed;
  }
}
