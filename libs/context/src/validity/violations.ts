/** What a validity checker reports about an encoded request body. */

export type ViolationCode =
  /** The body holds no message at all. */
  | 'no_messages'
  /** A message with no content. */
  | 'empty_message'
  /** A text / tool output that is empty or blank where the provider refuses it. */
  | 'empty_content'
  /** The history's first message is not from the user (Anthropic, Gemini). */
  | 'first_not_user'
  /** Two consecutive messages of the same role where the provider wants alternation. */
  | 'role_alternation'
  /** The history starts with a tool result / function output: its call was cut away. */
  | 'leading_orphan'
  /** A tool result whose call is not right before it. */
  | 'orphan_tool_result'
  /** A tool call not answered in the very next message(s). */
  | 'unanswered_tool_call'
  /** Two tool calls with one id. */
  | 'duplicate_tool_call_id'
  /** OpenAI `arguments` that are not a JSON object text. */
  | 'invalid_tool_arguments'
  /** Anthropic: text or another block before the tool_result blocks of a user message. */
  | 'tool_result_after_text'
  /** A thinking block or Gemini function call without the signature the provider requires. */
  | 'thinking_signature_missing'
  /** Anthropic: an assistant message with tool_use and thinking that does not start with it. */
  | 'thinking_not_first'
  /** More images than the provider takes in one request. */
  | 'too_many_images'
  /** One image over the provider's per-image byte limit. */
  | 'image_too_large'
  /** All images together over the provider's per-request image byte limit. */
  | 'images_total_too_large'
  /** An image wider or taller than the provider accepts. */
  | 'image_dimensions_too_large'
  /** The serialized body over the provider's request size limit. */
  | 'request_too_large';

export interface Violation {
  code: ViolationCode;
  /** Where in the body, e.g. `messages[3].content[1]`. */
  path: string;
  message: string;
}

export function violation(code: ViolationCode, path: string, message: string): Violation {
  return { code, path, message };
}

/** Thrown by `assertValid`: the body would be rejected by the provider it was built for. */
export class ContextValidityError extends Error {
  override readonly name = 'ContextValidityError';

  constructor(
    readonly provider: string,
    readonly violations: readonly Violation[],
  ) {
    super(
      `${provider} request body is invalid: ` +
        violations.map((v) => `${v.code} at ${v.path}: ${v.message}`).join('; '),
    );
  }
}
