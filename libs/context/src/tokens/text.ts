/** o200k_base is OpenAI's; for Claude and Gemini (no public tokenizer) calibration corrects it. */
import { countTokens as countCl100k } from 'gpt-tokenizer/cjs/encoding/cl100k_base';
import { countTokens as countO200k } from 'gpt-tokenizer/cjs/encoding/o200k_base';

export type TextEncodingName = 'o200k_base' | 'cl100k_base';

/** Special-token strings in user text are counted as ordinary text, never rejected. */
const AS_PLAIN_TEXT = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };

export function countTextTokens(text: string, encoding: TextEncodingName = 'o200k_base'): number {
  if (text === '') return 0;
  return encoding === 'cl100k_base'
    ? countCl100k(text, AS_PLAIN_TEXT)
    : countO200k(text, AS_PLAIN_TEXT);
}
