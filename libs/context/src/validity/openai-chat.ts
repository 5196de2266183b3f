/** OpenAI Chat Completions rules checked on the body we send; roles need not alternate. */
import type { ChatMessage, ChatTextPart, OpenAIChatBody } from '../providers/openai-chat';
import { isBlankText } from '../providers/shared';
import {
  type ImageRef,
  checkImages,
  checkRequestSize,
  dataUrlPayload,
  isJsonObjectText,
} from './images';
import { type ProviderLimits, resolveLimits } from './limits';
import { type Violation, violation } from './violations';

export interface OpenAIChatCheckOptions {
  limits?: Partial<ProviderLimits>;
  model?: string;
}

function blankParts(parts: readonly { type: string }[], path: () => string): Violation[] {
  const out: Violation[] = [];
  for (let k = 0; k < parts.length; k++) {
    const part = parts[k];
    if (part.type === 'text' && isBlankText((part as ChatTextPart).text)) {
      out.push(
        violation('empty_content', `${path()}.content[${k}]`, 'text part is empty or blank'),
      );
    }
  }
  return out;
}

const NONE: readonly Violation[] = [];

function checkContent(message: ChatMessage, path: () => string): readonly Violation[] {
  const empty = () => [violation('empty_message', path(), 'message has no content')];
  switch (message.role) {
    case 'system':
    case 'developer':
      return isBlankText(message.content) ? empty() : NONE;
    case 'user':
      if (typeof message.content === 'string') return isBlankText(message.content) ? empty() : NONE;
      return message.content.length === 0 ? empty() : blankParts(message.content, path);
    case 'assistant': {
      const hasCalls = (message.tool_calls ?? []).length > 0;
      const { content } = message;
      const noText =
        content === null ||
        (typeof content === 'string' ? isBlankText(content) : content.length === 0);
      if (noText) return hasCalls ? NONE : empty();
      return Array.isArray(content) ? blankParts(content, path) : NONE;
    }
    case 'tool':
      return isBlankText(message.content)
        ? [violation('empty_content', path(), 'tool output is empty')]
        : NONE;
  }
}

function ownerOf(messages: readonly ChatMessage[], i: number): number {
  let k = i - 1;
  while (k >= 0 && messages[k].role === 'tool') k--;
  return k;
}

function checkPairing(messages: readonly ChatMessage[]): Violation[] {
  const out: Violation[] = [];
  const seen = new Set<string>();
  const answeredInRun = new Map<number, Set<string>>();
  // A tool message is a leading orphan when only system, developer and tool messages come
  // before it: when it comes before the first message of another role.
  let firstOther = messages.findIndex(
    (m) => m.role !== 'system' && m.role !== 'developer' && m.role !== 'tool',
  );
  if (firstOther === -1) firstOther = messages.length;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (message.role === 'assistant') {
      const calls = message.tool_calls ?? [];
      const answered = new Set<string>();
      if (calls.length > 0) {
        for (let j = i + 1; j < messages.length; j++) {
          const tool = messages[j];
          if (tool.role !== 'tool') break;
          answered.add(tool.tool_call_id);
        }
      }
      for (let c = 0; c < calls.length; c++) {
        const call = calls[c];
        const path = () => `messages[${i}].tool_calls[${c}]`;
        if (seen.has(call.id)) {
          out.push(
            violation('duplicate_tool_call_id', path(), `tool call id ${call.id} is reused`),
          );
        }
        seen.add(call.id);
        if (!isJsonObjectText(call.function.arguments)) {
          out.push(
            violation(
              'invalid_tool_arguments',
              `${path()}.function.arguments`,
              'not a JSON object',
            ),
          );
        }
        if (!answered.has(call.id)) {
          out.push(
            violation(
              'unanswered_tool_call',
              path(),
              `tool call ${call.id} has no tool message right after the assistant message`,
            ),
          );
        }
      }
    }
    if (message.role === 'tool') {
      const path = `messages[${i}]`;
      const owner = ownerOf(messages, i);
      const ownerMessage = messages[owner];
      const leading = i <= firstOther;
      let run = answeredInRun.get(owner);
      if (run === undefined) {
        run = new Set<string>();
        answeredInRun.set(owner, run);
      }
      const id = message.tool_call_id;
      const called =
        ownerMessage?.role === 'assistant' &&
        (ownerMessage.tool_calls ?? []).some((c) => c.id === id);
      if (leading) {
        out.push(violation('leading_orphan', path, `history starts with the output of ${id}`));
      } else if (!called || run.has(id)) {
        out.push(
          violation(
            'orphan_tool_result',
            path,
            run.has(id)
              ? `second tool message for ${id}`
              : `tool message for ${id} does not follow its call`,
          ),
        );
      }
      run.add(id);
    }
  }
  return out;
}

function images(body: OpenAIChatBody): ImageRef[] {
  const refs: ImageRef[] = [];
  body.messages.forEach((message, i) => {
    if (message.role !== 'user' || typeof message.content === 'string') return;
    message.content.forEach((part, k) => {
      if (part.type !== 'image_url') return;
      const base64 = dataUrlPayload(part.image_url.url);
      if (base64 !== null) refs.push({ path: `messages[${i}].content[${k}]`, base64 });
    });
  });
  return refs;
}

export function checkOpenAIChat(
  body: OpenAIChatBody,
  options: OpenAIChatCheckOptions = {},
): Violation[] {
  const limits = resolveLimits('openai-chat', options.limits, options.model);
  if (body.messages.length === 0)
    return [violation('no_messages', 'messages', 'no message to send')];
  const content: Violation[] = [];
  body.messages.forEach((m, i) => {
    const found = checkContent(m, () => `messages[${i}]`);
    if (found.length > 0) content.push(...found);
  });
  return [
    ...content,
    ...checkPairing(body.messages),
    ...checkImages(images(body), limits),
    ...checkRequestSize(body, limits),
  ];
}
