/**
 * A `callModelInputFilter` that sends the model Arbor's fitted context instead of the raw
 * history: the committed turns come from `POST …/context` (format `openai-responses`, fitted to
 * `budgetTokens` by the ladder), the items of the turn in progress are passed as `append` (in
 * the budget, never compacted), and the answer's Responses input items are turned back into
 * Agents SDK items.
 */
import { type AgentInputItem, type CallModelInputFilter } from '@openai/agents';
import { type JsonValue } from '@arbor/client';
import { toArbor } from './mapping';
import { type ArborSession } from './session';

export interface ContextFilterOptions {
  /** The window to fit, in tokens (must exceed `maxTokens`). */
  budgetTokens: number;
  /** Tokens reserved for the answer (Arbor's default 4096). */
  maxTokens?: number;
  /** The model named to Arbor (its tokenizer and reasoning family); default the agent's model. */
  model?: string;
  /** Called with each context answer's receipt id and estimate (for logs and tests). */
  onContext?: (info: { contextId: string; estimatedTokens: number; tip: string | null }) => void;
}

type Json = JsonValue;
type Obj = { [key: string]: Json };
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const text = (content: Json | undefined): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((c) => (isObj(c) && typeof c.text === 'string' ? c.text : '')).join('')
      : '';

/** OpenAI Responses input items (what Arbor's `openai-responses` body holds) as SDK items. */
export const fromResponsesInput = (input: readonly Json[]): AgentInputItem[] => {
  const names = new Map<string, string>();
  const out: Json[] = [];
  for (const raw of input) {
    if (!isObj(raw)) continue;
    if (raw.type === 'function_call') {
      names.set(String(raw.call_id), String(raw.name));
      out.push({
        type: 'function_call',
        callId: String(raw.call_id),
        name: String(raw.name),
        arguments: String(raw.arguments),
        status: 'completed',
      });
    } else if (raw.type === 'function_call_output') {
      const callId = String(raw.call_id);
      out.push({
        type: 'function_call_result',
        callId,
        name: names.get(callId) ?? '',
        status: 'completed',
        output:
          typeof raw.output === 'string'
            ? { type: 'text', text: raw.output }
            : { type: 'text', text: text(raw.output) },
      });
    } else if (raw.type === 'reasoning') {
      const summary = Array.isArray(raw.summary) ? raw.summary : [];
      out.push({
        type: 'reasoning',
        ...(typeof raw.id === 'string' ? { id: raw.id } : {}),
        content: summary.map((s) => ({ type: 'input_text', text: isObj(s) ? String(s.text) : '' })),
        ...(typeof raw.encrypted_content === 'string'
          ? { providerData: { encrypted_content: raw.encrypted_content } }
          : {}),
      });
    } else if (raw.type === 'message' || raw.type === undefined) {
      const role = String(raw.role);
      if (role === 'assistant') {
        out.push({
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: text(raw.content) }],
        });
      } else if (role === 'system' || role === 'developer') {
        out.push({ role: 'system', content: text(raw.content) });
      } else {
        const parts = Array.isArray(raw.content) ? raw.content : [];
        out.push({
          role: 'user',
          content:
            typeof raw.content === 'string'
              ? raw.content
              : parts.filter(isObj).map((p): Json =>
                  p.type === 'input_image'
                    ? {
                        type: 'input_image',
                        image:
                          typeof p.file_id === 'string' ? { id: p.file_id } : String(p.image_url),
                        ...(typeof p.detail === 'string' ? { detail: p.detail } : {}),
                      }
                    : { type: 'input_text', text: String(p.text ?? '') },
                ),
        });
      }
    } else {
      // Provider items (hosted tool calls, compaction…) were stored as SDK items: as they are.
      out.push(raw);
    }
  }
  return out as unknown as AgentInputItem[];
};

type Expected = { type: string; optional: boolean };

/** What Arbor's openai-responses encoder makes of the appended messages, in order. */
const expectedWire = (messages: ReturnType<typeof toArbor>): Expected[] => {
  const out: Expected[] = [];
  for (const m of messages) {
    if (m.role === 'user') {
      for (const b of m.content)
        if (b.type === 'tool_result') out.push({ type: 'function_call_output', optional: false });
      if (m.content.some((b) => b.type === 'image' || (b.type === 'text' && b.text.trim())))
        out.push({ type: 'message', optional: false });
    } else if (m.role === 'system') {
      out.push({ type: 'message', optional: true });
    } else {
      for (const b of m.content) {
        if (b.type === 'tool_use') out.push({ type: 'function_call', optional: false });
        else if (b.type === 'text') out.push({ type: 'message', optional: true });
        else if (b.type === 'reasoning') out.push({ type: 'reasoning', optional: true });
        else if (b.type === 'provider') out.push({ type: String(b.item.type), optional: true });
      }
    }
  }
  return out;
};

/** How many items at the end of `input` are the appended messages' (-1: they do not line up). */
const appendedCount = (input: readonly Json[], expected: readonly Expected[]): number => {
  let j = input.length - 1;
  for (let k = expected.length - 1; k >= 0; k--) {
    const item = input[j];
    const type = isObj(item) ? (item.type ?? 'message') : undefined;
    if (j >= 0 && type === expected[k].type) j--;
    else if (!expected[k].optional) return -1;
  }
  return input.length - 1 - j;
};

/**
 * The filter: `Runner.run(agent, input, { session, callModelInputFilter: arborContext(session,
 * {budgetTokens}) })`. The first `n` items of the model input are the session's committed
 * history (as the runner prepares them): those are replaced by Arbor's fitted context. The rest
 * (the draft, the new input, this run's items) go to Arbor as `append`, so they count in the
 * budget, and are passed on as the very items the runner gave (it tracks them by identity to
 * know what to persist). A run whose session another writer moved meanwhile is sent its own
 * history instead, and fails at its commit with `StaleSessionError`.
 */
export const arborContext = (
  session: ArborSession,
  options: ContextFilterOptions,
): CallModelInputFilter => {
  return async ({ modelData, agent }) => {
    const committed = await session.committedItemCount();
    const tail = modelData.input.slice(committed);
    const model =
      options.model ?? (typeof agent.model === 'string' && agent.model ? agent.model : 'gpt-4.1');
    const conversationId = await session.currentConversationId();
    const append = toArbor(tail, { model });
    const answer = await session.client.context(conversationId, {
      provider: 'openai-responses',
      model,
      budgetTokens: options.budgetTokens,
      ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
      ...(modelData.instructions ? { system: modelData.instructions } : {}),
      ...(append.length > 0 ? { append } : {}),
    });
    options.onContext?.({
      contextId: answer.contextId,
      estimatedTokens: answer.receipt.estimatedTokens,
      tip: answer.tip,
    });
    // Another writer committed since this run read its history: the fitted context holds turns
    // the run never saw. The model gets the run's own history instead (unfitted, for this call),
    // and the run's commit then fails with stale_tip, keeping its turn as a branch.
    const startedFrom = session.runTip();
    if (startedFrom !== undefined && answer.tip !== startedFrom)
      return {
        input: modelData.input,
        ...(modelData.instructions !== undefined ? { instructions: modelData.instructions } : {}),
      };
    const body = answer.body;
    const input = Array.isArray(body.input) ? body.input : [];
    const appended = appendedCount(input, expectedWire(append));
    if (appended < 0)
      throw new Error(
        `@arbor/openai-agents: the context ${answer.contextId} does not end with the appended items`,
      );
    return {
      input: [...fromResponsesInput(input.slice(0, input.length - appended)), ...tail],
      ...(typeof body.instructions === 'string'
        ? { instructions: body.instructions }
        : modelData.instructions !== undefined
          ? { instructions: modelData.instructions }
          : {}),
    };
  };
};
