import type { BodyByProvider } from '../providers';
import type { ProviderName } from '../types';
import { checkAnthropic } from './anthropic';
import { checkGemini } from './gemini';
import type { ProviderLimits } from './limits';
import { checkOpenAIChat } from './openai-chat';
import { checkOpenAIResponses } from './openai-responses';
import { ContextValidityError, type Violation } from './violations';

export interface CheckOptions {
  limits?: Partial<ProviderLimits>;
  model?: string;
  requireThoughtSignatures?: boolean;
}

type Checker<P extends ProviderName> = (
  body: BodyByProvider[P],
  options: CheckOptions,
) => Violation[];

const CHECKERS: { [P in ProviderName]: Checker<P> } = {
  anthropic: checkAnthropic,
  'openai-chat': checkOpenAIChat,
  'openai-responses': checkOpenAIResponses,
  gemini: checkGemini,
};

/** Every rule of the provider that the encoded body breaks; empty when it is valid. */
export function checkBody<P extends ProviderName>(
  provider: P,
  body: BodyByProvider[P],
  options: CheckOptions = {},
): Violation[] {
  const checker: Checker<P> = CHECKERS[provider];
  return checker(body, options);
}

export function assertValid<P extends ProviderName>(
  provider: P,
  body: BodyByProvider[P],
  options: CheckOptions = {},
): BodyByProvider[P] {
  const violations = checkBody(provider, body, options);
  if (violations.length > 0) throw new ContextValidityError(provider, violations);
  return body;
}

export * from './anthropic';
export * from './gemini';
export * from './images';
export * from './limits';
export * from './openai-chat';
export * from './openai-responses';
export * from './violations';
