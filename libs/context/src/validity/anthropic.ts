/**
 * Anthropic Messages API rules checked on the body we send:
 * - at least one message; the first is from the user; user and assistant alternate;
 * - no empty message, no blank text block (the API: "text content blocks must contain
 *   non-whitespace text"), inside tool results too;
 * - every tool_use is answered by a tool_result in the very next (user) message, and every
 *   tool_result answers a tool_use of the message right before it; a result at the very start is a
 *   leading orphan; tool_use ids are unique;
 * - in a user message, tool_result blocks come before any other block;
 * - thinking blocks carry their signature, redacted thinking its data; an assistant message with
 *   tool_use and thinking starts with a thinking block;
 * - image count, per-image bytes (of base64) and sides, and request bytes within the limits.
 */
import type {
  AnthropicBody,
  AnthropicContentBlock,
  AnthropicMessage,
} from '../providers/anthropic';
import { isBlankText } from '../providers/shared';
import { type ImageRef, checkImages, checkRequestSize } from './images';
import { type ProviderLimits, resolveLimits } from './limits';
import { type Violation, violation } from './violations';

export interface AnthropicCheckOptions {
  limits?: Partial<ProviderLimits>;
}

const isThinking = (b: AnthropicContentBlock) =>
  b.type === 'thinking' || b.type === 'redacted_thinking';

function checkBlock(block: AnthropicContentBlock, path: string): Violation[] {
  switch (block.type) {
    case 'text':
      return isBlankText(block.text)
        ? [violation('empty_content', path, 'text block is empty or blank')]
        : [];
    case 'tool_result':
      return Array.isArray(block.content)
        ? block.content.flatMap((b, k) => checkBlock(b, `${path}.content[${k}]`))
        : [];
    case 'thinking':
      return block.signature
        ? []
        : [violation('thinking_signature_missing', path, 'thinking block has no signature')];
    case 'redacted_thinking':
      return block.data
        ? []
        : [violation('thinking_signature_missing', path, 'redacted_thinking block has no data')];
    default:
      return [];
  }
}

function checkMessageShape(message: AnthropicMessage, path: string): Violation[] {
  const out = message.content.flatMap((b, j) => checkBlock(b, `${path}.content[${j}]`));
  if (message.role === 'user') {
    const firstOther = message.content.findIndex((b) => b.type !== 'tool_result');
    const lateResult = message.content.findIndex(
      (b, j) => b.type === 'tool_result' && firstOther !== -1 && j > firstOther,
    );
    if (lateResult !== -1) {
      out.push(
        violation(
          'tool_result_after_text',
          `${path}.content[${lateResult}]`,
          'tool_result blocks must come before any other block of a user message',
        ),
      );
    }
  }
  if (
    message.role === 'assistant' &&
    message.content.some((b) => b.type === 'tool_use') &&
    message.content.some(isThinking) &&
    !isThinking(message.content[0])
  ) {
    out.push(
      violation(
        'thinking_not_first',
        `${path}.content[0]`,
        'an assistant message with tool_use and thinking must start with its thinking block',
      ),
    );
  }
  return out;
}

function checkPairing(messages: readonly AnthropicMessage[]): Violation[] {
  const out: Violation[] = [];
  const seen = new Set<string>();
  messages.forEach((message, i) => {
    const next = messages[i + 1];
    const previous = messages[i - 1];
    const answered = new Set(
      next?.role === 'user'
        ? next.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : []))
        : [],
    );
    const called = new Set(
      previous?.role === 'assistant'
        ? previous.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []))
        : [],
    );
    const resultsHere = new Set<string>();
    message.content.forEach((block, j) => {
      const path = `messages[${i}].content[${j}]`;
      if (block.type === 'tool_use' && message.role === 'assistant') {
        if (seen.has(block.id)) {
          out.push(violation('duplicate_tool_call_id', path, `tool_use id ${block.id} is reused`));
        }
        seen.add(block.id);
        if (!answered.has(block.id)) {
          out.push(
            violation(
              'unanswered_tool_call',
              path,
              `tool_use ${block.id} has no tool_result in the next message`,
            ),
          );
        }
      }
      if (block.type === 'tool_result') {
        const id = block.tool_use_id;
        if (i === 0) {
          out.push(violation('leading_orphan', path, `history starts with the result of ${id}`));
        } else if (!called.has(id) || resultsHere.has(id)) {
          out.push(
            violation(
              'orphan_tool_result',
              path,
              resultsHere.has(id)
                ? `second tool_result for ${id}`
                : `tool_result for ${id} does not follow its tool_use`,
            ),
          );
        }
        resultsHere.add(id);
      }
    });
  });
  return out;
}

function images(body: AnthropicBody): ImageRef[] {
  const refs: ImageRef[] = [];
  body.messages.forEach((message, i) =>
    message.content.forEach((block, j) => {
      const path = `messages[${i}].content[${j}]`;
      if (block.type === 'image') refs.push({ path, base64: block.source.data });
      if (block.type === 'tool_result' && Array.isArray(block.content)) {
        block.content.forEach((b, k) => {
          if (b.type === 'image')
            refs.push({ path: `${path}.content[${k}]`, base64: b.source.data });
        });
      }
    }),
  );
  return refs;
}

export function checkAnthropic(
  body: AnthropicBody,
  options: AnthropicCheckOptions = {},
): Violation[] {
  const limits = resolveLimits('anthropic', options.limits);
  const { messages } = body;
  if (messages.length === 0) return [violation('no_messages', 'messages', 'no message to send')];
  const out: Violation[] = [];
  if (messages[0].role !== 'user') {
    out.push(violation('first_not_user', 'messages[0]', 'the first message must be from the user'));
  }
  messages.forEach((message, i) => {
    const path = `messages[${i}]`;
    if (i > 0 && messages[i - 1].role === message.role) {
      out.push(violation('role_alternation', path, `two ${message.role} messages in a row`));
    }
    if (message.content.length === 0) {
      out.push(violation('empty_message', path, 'message has no content'));
    }
    out.push(...checkMessageShape(message, path));
  });
  return [
    ...out,
    ...checkPairing(messages),
    ...checkImages(images(body), limits),
    ...checkRequestSize(body, limits),
  ];
}
