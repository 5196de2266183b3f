/** Anthropic Messages API rules checked on the body we send (README.md). */
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
  model?: string;
}

const isThinking = (b: AnthropicContentBlock) =>
  b.type === 'thinking' || b.type === 'redacted_thinking';

/** Paths are built only for a violation: almost every block of thousands is fine. */
function checkBlock(block: AnthropicContentBlock, path: () => string, out: Violation[]): void {
  switch (block.type) {
    case 'text':
      if (isBlankText(block.text)) {
        out.push(violation('empty_content', path(), 'text block is empty or blank'));
      }
      return;
    case 'tool_result':
      if (Array.isArray(block.content)) {
        const inner = block.content;
        for (let k = 0; k < inner.length; k++) {
          checkBlock(inner[k], () => `${path()}.content[${k}]`, out);
        }
      }
      return;
    case 'thinking':
      if (!block.signature) {
        out.push(
          violation('thinking_signature_missing', path(), 'thinking block has no signature'),
        );
      }
      return;
    case 'redacted_thinking':
      if (!block.data) {
        out.push(
          violation('thinking_signature_missing', path(), 'redacted_thinking block has no data'),
        );
      }
      return;
    default:
      return;
  }
}

function checkMessageShape(message: AnthropicMessage, path: string, out: Violation[]): void {
  const content = message.content;
  for (let j = 0; j < content.length; j++) {
    checkBlock(content[j], () => `${path}.content[${j}]`, out);
  }
  if (message.role === 'user') {
    const firstOther = content.findIndex((b) => b.type !== 'tool_result');
    const lateResult =
      firstOther === -1
        ? -1
        : content.findIndex((b, j) => b.type === 'tool_result' && j > firstOther);
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
    content.some((b) => b.type === 'tool_use') &&
    content.some(isThinking) &&
    !isThinking(content[0])
  ) {
    out.push(
      violation(
        'thinking_not_first',
        `${path}.content[0]`,
        'an assistant message with tool_use and thinking must start with its thinking block',
      ),
    );
  }
}

const SCAN_LIMIT = 16;

function blockId(
  block: AnthropicContentBlock,
  type: 'tool_use' | 'tool_result',
): string | undefined {
  if (block.type !== type) return undefined;
  if (block.type === 'tool_use') return block.id;
  return block.type === 'tool_result' ? block.tool_use_id : undefined;
}

function holds(
  message: AnthropicMessage | undefined,
  role: AnthropicMessage['role'],
  type: 'tool_use' | 'tool_result',
  id: string,
  index: WeakMap<AnthropicMessage, Set<string>>,
): boolean {
  if (message?.role !== role) return false;
  if (message.content.length <= SCAN_LIMIT) {
    for (const b of message.content) if (blockId(b, type) === id) return true;
    return false;
  }
  let ids = index.get(message);
  if (ids === undefined) {
    ids = new Set();
    for (const b of message.content) {
      const found = blockId(b, type);
      if (found !== undefined) ids.add(found);
    }
    index.set(message, ids);
  }
  return ids.has(id);
}

function checkPairing(messages: readonly AnthropicMessage[]): Violation[] {
  const out: Violation[] = [];
  const seen = new Set<string>();
  const index = new WeakMap<AnthropicMessage, Set<string>>();
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    const content = message.content;
    let resultsHere: Set<string> | undefined;
    for (let j = 0; j < content.length; j++) {
      const block = content[j];
      if (block.type === 'tool_use' && message.role === 'assistant') {
        if (seen.has(block.id)) {
          out.push(
            violation(
              'duplicate_tool_call_id',
              `messages[${i}].content[${j}]`,
              `tool_use id ${block.id} is reused`,
            ),
          );
        }
        seen.add(block.id);
        if (!holds(messages[i + 1], 'user', 'tool_result', block.id, index)) {
          out.push(
            violation(
              'unanswered_tool_call',
              `messages[${i}].content[${j}]`,
              `tool_use ${block.id} has no tool_result in the next message`,
            ),
          );
        }
      }
      if (block.type === 'tool_result') {
        const id = block.tool_use_id;
        const twice = resultsHere?.has(id) === true;
        if (i === 0) {
          out.push(
            violation(
              'leading_orphan',
              `messages[${i}].content[${j}]`,
              `history starts with the result of ${id}`,
            ),
          );
        } else if (twice || !holds(messages[i - 1], 'assistant', 'tool_use', id, index)) {
          out.push(
            violation(
              'orphan_tool_result',
              `messages[${i}].content[${j}]`,
              twice
                ? `second tool_result for ${id}`
                : `tool_result for ${id} does not follow its tool_use`,
            ),
          );
        }
        (resultsHere ??= new Set()).add(id);
      }
    }
  }
  return out;
}

function images(body: AnthropicBody): ImageRef[] {
  const refs: ImageRef[] = [];
  body.messages.forEach((message, i) =>
    message.content.forEach((block, j) => {
      if (block.type === 'image' && block.source.type === 'base64') {
        refs.push({ path: `messages[${i}].content[${j}]`, base64: block.source.data });
      }
      if (block.type === 'tool_result' && Array.isArray(block.content)) {
        block.content.forEach((b, k) => {
          if (b.type === 'image' && b.source.type === 'base64') {
            refs.push({
              path: `messages[${i}].content[${j}].content[${k}]`,
              base64: b.source.data,
            });
          }
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
  const limits = resolveLimits('anthropic', options.limits, options.model);
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
    checkMessageShape(message, path, out);
  });
  return [
    ...out,
    ...checkPairing(messages),
    ...checkImages(images(body), limits),
    ...checkRequestSize(body, limits),
  ];
}
