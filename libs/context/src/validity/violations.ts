/** What a validity checker reports about an encoded request body. */

export type ViolationCode =
  | 'no_messages'
  | 'empty_message'
  | 'empty_content'
  | 'first_not_user'
  | 'role_alternation'
  | 'leading_orphan'
  | 'orphan_tool_result'
  | 'unanswered_tool_call'
  | 'duplicate_tool_call_id'
  | 'invalid_tool_arguments'
  | 'tool_result_after_text'
  | 'thinking_signature_missing'
  | 'thinking_not_first'
  | 'too_many_images'
  | 'image_too_large'
  | 'images_total_too_large'
  | 'image_dimensions_too_large'
  | 'request_too_large';

export interface Violation {
  code: ViolationCode;
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
