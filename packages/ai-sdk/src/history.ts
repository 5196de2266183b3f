/**
 * Arbor as the history of an `ai` step loop: `next()` builds the messages of the next call from
 * `POST …/context` (fitted to a budget), `commit()` persists a finished loop as one turn.
 */
import { type ModelMessage } from 'ai';
import { type ArborClient, type CallInit, type MessageInput } from '@arbor/client';
import { type ArborContextLike, fromArbor, type StepUsage, toArbor } from './mapping';

type ContextOptions = Omit<NonNullable<CallInit<'buildContext'>['body']>, 'provider'>;

export interface NextRequest {
  /** The fitted history as ModelMessages (system first when one was given). */
  messages: ModelMessage[];
  /** The tip it was built on: `commit` sends it as `expectedTip`. */
  tip: string | null;
  /** The context receipt's id (for `GET …/contexts/{id}` reproduction). */
  contextId: string | null;
}

/** What a finished `generateText` loop hands over (`result.response.messages`, `result.steps`). */
export interface FinishedLoop {
  response: { messages: readonly ModelMessage[] };
  steps: readonly { usage?: StepUsage; response?: { modelId?: string } }[];
}

export class ArborHistory {
  constructor(
    private readonly client: ArborClient,
    readonly conversationId: string,
  ) {}

  /** Create the conversation under this id, or get it (safe to call on every start). */
  async ensure(title?: string) {
    return this.client.call('ensureConversation', {
      path: { id: this.conversationId },
      body: title ? { title } : {},
    });
  }

  /**
   * The history for the next call, fitted to `budgetTokens` by Arbor's ladder. It is asked in
   * Anthropic's shape (Arbor's own block shape) and turned into ModelMessages, so it fits any
   * `ai` provider. An empty conversation has an empty history.
   */
  async next(options: ContextOptions): Promise<NextRequest> {
    const conversation = await this.client.getConversation(this.conversationId);
    if (conversation.tip === null) {
      const messages: ModelMessage[] = options.system
        ? [{ role: 'system', content: options.system }]
        : [];
      return { messages, tip: null, contextId: null };
    }
    const answer = await this.client.context(this.conversationId, {
      ...options,
      provider: 'anthropic',
    });
    return {
      messages: fromArbor(answer.body as unknown as ArborContextLike),
      tip: answer.tip,
      contextId: answer.contextId,
    };
  }

  /**
   * Persist one finished loop as a turn: the new input messages (the user's, usually one) and
   * what the loop produced, each assistant message with its step's usage. `expectedTip` (from
   * `next`) makes a concurrent writer a `409 stale_tip` instead of a silent fork.
   */
  async commit(input: readonly ModelMessage[], loop: FinishedLoop, expectedTip?: string | null) {
    const steps = loop.steps.map((s) => ({ usage: s.usage, model: s.response?.modelId }));
    const produced = toArbor(loop.response.messages, steps);
    const messages: MessageInput[] = [...toArbor(input), ...produced];
    return this.client.commitTurn(this.conversationId, {
      messages,
      ...(expectedTip !== undefined ? { expectedTip } : {}),
    });
  }
}
