import {
  CommandHandler,
  type ICommandHandler,
  type IQueryHandler,
  Query,
  QueryHandler,
} from '@nestjs/cqrs';
import {
  type CommitDraftCommand,
  type DraftRecord,
  type ResultOf,
  type SaveDraftCommand,
} from '@arbor/domain';
import { type Caller } from '../caller';
import { ConversationRepository } from '../conversations/conversation.repository';
import { ConversationWrite, ConversationWriter, type Fields } from '../conversations/commands';
import { AppError, conversationNotFound } from '../errors';

export class SaveDraft extends ConversationWrite<ResultOf<'saveDraft'>> {
  constructor(
    caller: Caller,
    conversationId: string,
    readonly input: Fields<SaveDraftCommand>,
  ) {
    super(caller, conversationId);
  }
}

export class DiscardDraft extends ConversationWrite<ResultOf<'discardDraft'>> {}

export class CommitDraft extends ConversationWrite<ResultOf<'commitDraft'>> {
  constructor(
    caller: Caller,
    conversationId: string,
    readonly input: Fields<CommitDraftCommand>,
  ) {
    super(caller, conversationId);
  }
}

/** Read from the stream, not a read model, so a draft is there right after a restart. */
export class GetDraft extends Query<DraftRecord & { tip: string | null }> {
  constructor(
    readonly caller: Caller,
    readonly conversationId: string,
  ) {
    super();
  }
}

@CommandHandler(SaveDraft)
export class SaveDraftHandler implements ICommandHandler<SaveDraft> {
  constructor(private readonly writer: ConversationWriter) {}
  execute({ caller, conversationId, input }: SaveDraft) {
    return this.writer.write(caller, conversationId, { type: 'saveDraft', ...input });
  }
}

@CommandHandler(DiscardDraft)
export class DiscardDraftHandler implements ICommandHandler<DiscardDraft> {
  constructor(private readonly writer: ConversationWriter) {}
  execute({ caller, conversationId }: DiscardDraft) {
    return this.writer.write(caller, conversationId, { type: 'discardDraft' });
  }
}

@CommandHandler(CommitDraft)
export class CommitDraftHandler implements ICommandHandler<CommitDraft> {
  constructor(private readonly writer: ConversationWriter) {}
  execute({ caller, conversationId, input }: CommitDraft) {
    return this.writer.write(caller, conversationId, { type: 'commitDraft', ...input });
  }
}

@QueryHandler(GetDraft)
export class GetDraftHandler implements IQueryHandler<GetDraft> {
  constructor(private readonly repository: ConversationRepository) {}
  async execute({ caller, conversationId }: GetDraft) {
    const state = await this.repository.load(caller.tenantId, conversationId);
    if (state.status === 'none') throw conversationNotFound();
    const draft = state.draft;
    if (draft === null) throw new AppError('draft_not_found', 'This conversation has no draft.');
    return {
      draftId: draft.draftId,
      parentId: draft.parentId,
      messages: draft.messages,
      revision: draft.revision,
      tip: state.tip,
    };
  }
}

export const DRAFT_HANDLERS = [
  SaveDraftHandler,
  DiscardDraftHandler,
  CommitDraftHandler,
  GetDraftHandler,
];
