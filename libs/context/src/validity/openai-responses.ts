/** OpenAI Responses rules checked on the input items we send (README.md). */
import type {
  OpenAIResponsesBody,
  ResponsesInputContent,
  ResponsesItem,
} from '../providers/openai-responses';
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

export interface OpenAIResponsesCheckOptions {
  limits?: Partial<ProviderLimits>;
  model?: string;
}

function blankTexts(
  parts: readonly { type: string; text?: string }[],
  path: () => string,
): Violation[] {
  const out: Violation[] = [];
  for (let k = 0; k < parts.length; k++) {
    const part = parts[k];
    if (
      (part.type === 'input_text' || part.type === 'output_text') &&
      isBlankText(part.text ?? '')
    ) {
      out.push(violation('empty_content', `${path()}[${k}]`, 'text part is empty or blank'));
    }
  }
  return out;
}

function checkContent(item: ResponsesItem, path: () => string): Violation[] {
  if (item.type === 'message') {
    const content = item.content;
    if (typeof content === 'string') {
      return isBlankText(content)
        ? [violation('empty_content', `${path()}.content`, 'message text is empty or blank')]
        : [];
    }
    return content.length === 0
      ? [violation('empty_message', path(), 'message has no content')]
      : blankTexts(content, () => `${path()}.content`);
  }
  if (item.type === 'function_call_output') {
    if (typeof item.output === 'string') {
      return isBlankText(item.output)
        ? [violation('empty_content', `${path()}.output`, 'function output is empty')]
        : [];
    }
    return item.output.length === 0
      ? [violation('empty_content', `${path()}.output`, 'function output is empty')]
      : blankTexts(item.output, () => `${path()}.output`);
  }
  return [];
}

/** Whatever follows a model response's run of outputs closes the calls still open. */
function checkPairing(items: readonly ResponsesItem[]): Violation[] {
  const out: Violation[] = [];
  const pending = new Map<string, number>(); // call_id → index of the call
  const seen = new Set<string>();
  const answered = new Set<string>();
  let inOutputs = false;
  let anyTurn = false;
  const close = () => {
    for (const [id, at] of pending) {
      out.push(
        violation(
          'unanswered_tool_call',
          `input[${at}]`,
          `function call ${id} has no function_call_output right after its response`,
        ),
      );
    }
    pending.clear();
    inOutputs = false;
  };
  items.forEach((item, i) => {
    const path = () => `input[${i}]`;
    if (item.type === 'function_call_output') {
      inOutputs = true;
      if (!anyTurn) {
        out.push(
          violation('leading_orphan', path(), `history starts with the output of ${item.call_id}`),
        );
      } else if (!pending.has(item.call_id)) {
        out.push(
          violation(
            'orphan_tool_result',
            path(),
            answered.has(item.call_id)
              ? `second output for ${item.call_id}`
              : `output for ${item.call_id} does not follow its call`,
          ),
        );
      }
      pending.delete(item.call_id);
      answered.add(item.call_id);
      return;
    }
    const role = 'role' in item ? item.role : undefined;
    // Reasoning and compaction items are the model's output, like a call or assistant text.
    const modelSide =
      item.type === 'function_call' ||
      item.type === 'reasoning' ||
      item.type === 'compaction' ||
      role === 'assistant';
    if (modelSide || role === 'user') {
      anyTurn = true;
    }
    if (modelSide) {
      if (inOutputs) close();
    } else {
      close();
    }
    if (item.type !== 'function_call') return;
    if (seen.has(item.call_id)) {
      out.push(violation('duplicate_tool_call_id', path(), `call_id ${item.call_id} is reused`));
    }
    seen.add(item.call_id);
    pending.set(item.call_id, i);
    if (!isJsonObjectText(item.arguments)) {
      out.push(violation('invalid_tool_arguments', `${path()}.arguments`, 'not a JSON object'));
    }
  });
  close();
  return out;
}

function imageRefs(
  content: readonly ResponsesInputContent[],
  path: string,
  refs: ImageRef[],
): void {
  content.forEach((part, k) => {
    if (part.type !== 'input_image' || !('image_url' in part)) return;
    const base64 = dataUrlPayload(part.image_url);
    if (base64 !== null) refs.push({ path: `${path}[${k}]`, base64 });
  });
}

function images(body: OpenAIResponsesBody): ImageRef[] {
  const refs: ImageRef[] = [];
  body.input.forEach((item, i) => {
    if (item.type === 'message' && item.role !== 'assistant') {
      imageRefs(item.content, `input[${i}].content`, refs);
    } else if (item.type === 'function_call_output' && Array.isArray(item.output)) {
      imageRefs(item.output, `input[${i}].output`, refs);
    }
  });
  return refs;
}

function contentViolations(items: readonly ResponsesItem[]): Violation[] {
  const out: Violation[] = [];
  items.forEach((item, i) => {
    const found = checkContent(item, () => `input[${i}]`);
    if (found.length > 0) out.push(...found);
  });
  return out;
}

export function checkOpenAIResponses(
  body: OpenAIResponsesBody,
  options: OpenAIResponsesCheckOptions = {},
): Violation[] {
  const limits = resolveLimits('openai-responses', options.limits, options.model);
  if (body.input.length === 0) return [violation('no_messages', 'input', 'no input item to send')];
  return [
    ...contentViolations(body.input),
    ...checkPairing(body.input),
    ...checkImages(images(body), limits),
    ...checkRequestSize(body, limits),
  ];
}
