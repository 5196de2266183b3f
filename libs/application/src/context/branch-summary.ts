import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { countTextTokens } from '@arbor/context';
import {
  abandonedPath,
  BRANCH_SUMMARY_VERSION,
  type BranchSummary,
  hasMessage,
  type Message,
} from '@arbor/domain';
import { conversationStream } from '@arbor/event-store';
import { type Caller } from '../caller';
import { ConversationWriter } from '../conversations/commands';
import { ConversationRepository } from '../conversations/conversation.repository';
import { ReadModelsService } from '../conversations/read-models.service';
import { AppError, conversationNotFound } from '../errors';
import { SUMMARIZE_BRANCH, type SummarizeBranch } from './context.providers';

export const BRANCH_SUMMARY_INSTRUCTIONS = [
  'This transcript is a branch of the conversation that is being left: the user goes back to an',
  'earlier point and continues on another branch. Summarize what this branch tried, what it',
  'found out and what did not work, so the new branch can use it without repeating it.',
].join(' ');

/** The tip moves only with its summary: with no summarizer, or a failed one, nothing moves. */
export class MoveTipWithSummary extends Command<{
  tip: string | null;
  revision: number;
  branchSummary: Pick<
    BranchSummary,
    'summaryId' | 'ancestorId' | 'fromTip' | 'abandonedIds' | 'tokens' | 'summarizerModel'
  >;
}> {
  constructor(
    readonly caller: Caller,
    readonly conversationId: string,
    readonly input: {
      messageId: string;
      expectedTip?: string | null;
      instruction?: string;
    },
  ) {
    super();
  }
}

@CommandHandler(MoveTipWithSummary)
export class MoveTipWithSummaryHandler implements ICommandHandler<MoveTipWithSummary> {
  constructor(
    private readonly repository: ConversationRepository,
    private readonly writer: ConversationWriter,
    private readonly readModels: ReadModelsService,
    @Inject(SUMMARIZE_BRANCH) private readonly summarize: SummarizeBranch | null,
  ) {}

  async execute({ caller, conversationId, input }: MoveTipWithSummary) {
    const state = await this.repository.load(caller.tenantId, conversationId);
    if (state.status === 'none') throw conversationNotFound();
    if (input.expectedTip !== undefined && input.expectedTip !== state.tip) {
      throw new AppError('stale_tip', 'the tip has moved since it was read', {
        expectedTip: input.expectedTip,
        tip: state.tip,
      });
    }
    if (!hasMessage(state, input.messageId)) {
      throw new AppError('message_not_found', 'no such message in this conversation', {
        messageId: input.messageId,
      });
    }
    const fromTip = state.tip;
    const path = fromTip === null ? null : abandonedPath(state, fromTip, input.messageId);
    if (fromTip === null || path === null || !path.ok) {
      throw new AppError(
        'nothing_to_summarize',
        path !== null && !path.ok && path.reason === 'no_common_ancestor'
          ? 'the new tip shares no ancestor with the current tip'
          : 'the new tip is on the current path: moving there leaves nothing behind',
        { tip: fromTip, messageId: input.messageId },
      );
    }
    if (this.summarize === null) {
      throw new AppError(
        'summarizer_not_configured',
        'no summarizer is configured (ARBOR_SUMMARY_*); move the tip without summarize',
      );
    }
    const abandoned = await this.abandonedMessages(caller, conversationId, path.abandonedIds);
    const instruction = input.instruction?.trim() ?? '';
    let result: { summary: string; model: string; windows: number };
    try {
      result = await this.summarize({
        messages: abandoned,
        instructions:
          instruction === ''
            ? BRANCH_SUMMARY_INSTRUCTIONS
            : `${BRANCH_SUMMARY_INSTRUCTIONS}\n${instruction}`,
      });
    } catch (error) {
      throw new AppError(
        'summarizer_failed',
        `the summarizer failed; the tip did not move: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (result.summary.trim() === '') {
      throw new AppError(
        'summarizer_failed',
        'the summarizer returned an empty summary; the tip did not move',
      );
    }
    const summary: BranchSummary = {
      version: BRANCH_SUMMARY_VERSION,
      summaryId: randomUUID(),
      ancestorId: path.ancestorId,
      fromTip,
      toTip: input.messageId,
      abandonedIds: path.abandonedIds,
      ontoId: path.ontoId,
      summary: result.summary,
      instruction: instruction === '' ? null : instruction,
      tokens: countTextTokens(result.summary),
      summarizerModel: result.model,
      windows: result.windows,
    };
    const { result: moved } = await this.writer.write(caller, conversationId, {
      type: 'moveTip',
      messageId: input.messageId,
      expectedTip: fromTip,
      branchSummary: summary,
    });
    return {
      tip: moved.tip,
      revision: moved.revision,
      branchSummary: {
        summaryId: summary.summaryId,
        ancestorId: summary.ancestorId,
        fromTip: summary.fromTip,
        abandonedIds: summary.abandonedIds,
        tokens: summary.tokens,
        summarizerModel: summary.summarizerModel,
      },
    };
  }

  private async abandonedMessages(
    caller: Caller,
    conversationId: string,
    ids: readonly string[],
  ): Promise<Message[]> {
    const queries = await this.readModels.upToDateWith(
      conversationStream(caller.tenantId, conversationId),
    );
    const depth = await queries.depthOf(caller.tenantId, conversationId, ids[0]);
    if (depth === null) throw new AppError('projection_lagging', 'retry: the read model lags');
    const out: Message[] = [];
    for (let at: number | null = depth; at !== null && out.length < ids.length;) {
      const page = await queries.activeBranchPage(caller.tenantId, conversationId, at, 2000);
      out.push(...page.items);
      at = page.nextDepth;
    }
    const messages = out.slice(0, ids.length);
    if (messages.map((m) => m.id).join('\n') !== ids.join('\n')) {
      throw new AppError('projection_lagging', 'retry: the read model has not reached the tip');
    }
    return messages;
  }
}
