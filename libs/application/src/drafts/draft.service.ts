import { Injectable } from '@nestjs/common';
import { type MessageInput } from '@arbor/domain';
import { type Caller } from '../caller';
import { ConversationRepository } from '../conversations/conversation.repository';
import { ReadModelsService } from '../conversations/read-models.service';
import { AppError, conversationNotFound } from '../errors';

/**
 * Open turns: the turn in progress kept as events (`DraftSaved` / `DraftDiscarded`), read from
 * the conversation's own stream (never a read model, so a draft is there right after a
 * restart), committed as one turn in one append. Never history, a context or a resume.
 */
@Injectable()
export class DraftService {
  constructor(
    private readonly repository: ConversationRepository,
    private readonly readModels: ReadModelsService,
  ) {}

  async get(caller: Caller, conversationId: string) {
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

  async save(
    caller: Caller,
    conversationId: string,
    input: { parentId: string | null; messages: MessageInput[]; draftId?: string },
  ) {
    const { result, position } = await this.repository.execute(caller, conversationId, {
      type: 'saveDraft',
      ...input,
    });
    this.readModels.noteWrite(caller.keyId, position);
    return result;
  }

  async discard(caller: Caller, conversationId: string) {
    const { result, position } = await this.repository.execute(caller, conversationId, {
      type: 'discardDraft',
    });
    this.readModels.noteWrite(caller.keyId, position);
    return result;
  }

  async commit(
    caller: Caller,
    conversationId: string,
    input: { messages: MessageInput[]; turnId?: string; expectedTip?: string | null },
  ) {
    const { result, position } = await this.repository.execute(caller, conversationId, {
      type: 'commitDraft',
      ...input,
    });
    this.readModels.noteWrite(caller.keyId, position);
    return result;
  }
}
