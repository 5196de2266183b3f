/**
 * Arbor as the history of an `ai` step loop: `next()` builds the messages of the next call from
 * `POST …/context` (fitted to a budget), `commit()` persists a finished loop as one turn.
 */
import { type ModelMessage } from 'ai';
import { type ArborClient, type CallInit, type MessageInput } from '@arbor/client';
import { type ArborContextLike, fromArbor, type StepUsage, toArbor } from './mapping';

type ContextOptions = Omit<NonNullable<CallInit<'buildContext'>['body']>, 'provider'>;

export interface NextRequest {
  /**
   * The system prompt: pass it as `system` (the AI SDK warns about system messages in
   * `messages`). Undefined when there is none.
   */
  system?: string;
  /** The fitted history as ModelMessages, without system messages. */
  messages: ModelMessage[];
  /** The tip it was built on: `commit` sends it as `expectedTip`. */
  tip: string | null;
  /** The context receipt's id (for `GET …/contexts/{id}` reproduction). */
  contextId: string | null;
}

type Step = { usage?: StepUsage; response?: { modelId?: string } };

/**
 * What a finished loop hands over: a `generateText` result (`response.messages`, `steps`), or a
 * `streamText` result as it is (the same fields as promises, settled once the stream is done).
 */
export interface FinishedLoop {
  response:
    { messages: readonly ModelMessage[] } | PromiseLike<{ messages: readonly ModelMessage[] }>;
  steps: readonly Step[] | PromiseLike<readonly Step[]>;
}

export interface CommitOptions {
  /** The tip `next()` built on: a concurrent writer is then a `409 stale_tip`. */
  expectedTip?: string | null;
  /** Makes the commit idempotent: the same turnId again answers `replayed`, storing nothing. */
  turnId?: string;
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
    if (conversation.tip === null)
      return {
        ...(options.system ? { system: options.system } : {}),
        messages: [],
        tip: null,
        contextId: null,
      };
    const answer = await this.client.context(this.conversationId, {
      ...options,
      provider: 'anthropic',
    });
    const all = fromArbor(answer.body as unknown as ArborContextLike);
    // System messages (the prompt, and any stored in the history) are joined into `system`.
    const system = all.flatMap((m) => (m.role === 'system' ? [m.content] : [])).join('\n');
    return {
      ...(system ? { system } : {}),
      messages: all.filter((m) => m.role !== 'system'),
      tip: answer.tip,
      contextId: answer.contextId,
    };
  }

  /**
   * Persist one finished loop as a turn: the new input messages (the user's, usually one) and
   * what the loop produced, each assistant message with its step's usage. The third argument is
   * `expectedTip` (from `next`) or `{expectedTip, turnId}`; without a `turnId` a fresh one is
   * made, kept across the client's own retries only.
   */
  async commit(
    input: readonly ModelMessage[],
    loop: FinishedLoop,
    options?: string | null | CommitOptions,
  ) {
    const { expectedTip, turnId }: CommitOptions =
      options === undefined || options === null || typeof options === 'string'
        ? { expectedTip: options }
        : options;
    const [response, loopSteps] = await Promise.all([loop.response, loop.steps]);
    const steps = loopSteps.map((s) => ({ usage: s.usage, model: s.response?.modelId }));
    const produced = toArbor(response.messages, steps);
    const messages: MessageInput[] = [...toArbor(input), ...produced];
    return this.client.commitTurn(this.conversationId, {
      messages,
      ...(expectedTip !== undefined ? { expectedTip } : {}),
      ...(turnId !== undefined ? { turnId } : {}),
    });
  }
}
