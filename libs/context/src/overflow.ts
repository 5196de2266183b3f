// Only exact, anchored phrasings of a provider's "too long" error are read; anything else is
// null, never a guess (the phrasings: README.md).

export interface OverflowNumbers {
  measuredTokens: number;
  limitTokens: number;
  provider: 'anthropic' | 'openai' | 'gemini';
}

interface Pattern {
  provider: OverflowNumbers['provider'];
  regex: RegExp;
  read: (n: number[]) => { measuredTokens: number; limitTokens: number };
}

const N = '(\\d{1,9})';
const PLEASE_REDUCE =
  '(?:\\s+Please reduce the length of the messages(?: or (?:functions|completion))?\\.)?';

const PATTERNS: Pattern[] = [
  {
    provider: 'anthropic',
    regex: new RegExp(`^prompt is too long: ${N} tokens > ${N} maximum$`),
    read: ([measured, limit]) => ({ measuredTokens: measured, limitTokens: limit }),
  },
  {
    provider: 'anthropic',
    regex: new RegExp(
      `^input length and \`?max_tokens\`? exceed context limit: ${N} \\+ ${N} > ${N}, ` +
        'decrease input length or `?max_tokens`? and try again$',
    ),
    read: ([input, maxTokens, context]) => ({
      measuredTokens: input,
      limitTokens: context - maxTokens,
    }),
  },
  {
    provider: 'openai',
    regex: new RegExp(
      `^This model's maximum context length is ${N} tokens\\. However, your messages resulted in ` +
        `${N} tokens(?: \\(\\d{1,9} in the messages, \\d{1,9} in the functions\\))?\\.${PLEASE_REDUCE}$`,
    ),
    read: ([limit, measured]) => ({ measuredTokens: measured, limitTokens: limit }),
  },
  {
    provider: 'openai',
    regex: new RegExp(
      `^This model's maximum context length is ${N} tokens\\. However, you requested \\d{1,9} ` +
        `tokens \\(${N} in the messages, ${N} in the completion\\)\\.${PLEASE_REDUCE}$`,
    ),
    read: ([maximum, messages, completion]) => ({
      measuredTokens: messages,
      limitTokens: maximum - completion,
    }),
  },
  {
    provider: 'openai',
    regex: new RegExp(
      `^Input tokens exceed the configured limit of ${N} tokens\\. Your messages resulted in ` +
        `${N} tokens\\.${PLEASE_REDUCE}$`,
    ),
    read: ([limit, measured]) => ({ measuredTokens: measured, limitTokens: limit }),
  },
  {
    provider: 'gemini',
    regex: new RegExp(
      `^The input token count \\(${N}\\) exceeds the maximum number of tokens allowed \\(${N}\\)\\.$`,
    ),
    read: ([measured, limit]) => ({ measuredTokens: measured, limitTokens: limit }),
  },
];

const PREFIXES = [
  /^(?:[A-Za-z]*Error:\s*)?\d{3}\s+/,
  /^The model returned the following errors:\s*/,
];

function jsonMessages(value: unknown, out: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) jsonMessages(item, out);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      if (key === 'message' && typeof child === 'string') out.push(child);
      else jsonMessages(child, out);
    }
  }
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const MESSAGE_FIELD = /["']message["']\s*:\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')/g;

function unquote(literal: string): string | undefined {
  if (literal.startsWith('"')) {
    const parsed = tryJson(literal);
    return typeof parsed === 'string' ? parsed : undefined;
  }
  return literal.slice(1, -1).replace(/\\(.)/g, '$1');
}

function candidates(text: string, depth = 0): string[] {
  const found = [text.trim()];
  if (depth > 3) return found;
  const nested: string[] = [];
  for (const start of [text.indexOf('{'), text.indexOf('[')]) {
    if (start !== -1) jsonMessages(tryJson(text.slice(start)), nested);
  }
  for (const match of text.matchAll(MESSAGE_FIELD)) {
    const value = unquote(match[1]);
    if (value !== undefined) nested.push(value);
  }
  for (const message of nested) {
    if (message !== text) found.push(...candidates(message, depth + 1));
  }
  return found;
}

function withoutPrefixes(text: string): string[] {
  const variants = [text];
  for (const prefix of PREFIXES) {
    const stripped = text.replace(prefix, '');
    if (stripped !== text) variants.push(stripped.trim());
  }
  return variants;
}

function match(text: string): OverflowNumbers | null {
  for (const pattern of PATTERNS) {
    const m = pattern.regex.exec(text);
    if (!m) continue;
    const numbers = m.slice(1).map(Number);
    const { measuredTokens, limitTokens } = pattern.read(numbers);
    if (measuredTokens > 0 && limitTokens > 0) {
      return { measuredTokens, limitTokens, provider: pattern.provider };
    }
  }
  return null;
}

/** The numbers of a provider's "too long" error, or null when the text is not one we know. */
export function parseOverflowError(raw: string): OverflowNumbers | null {
  for (const candidate of candidates(raw)) {
    for (const text of withoutPrefixes(candidate)) {
      const found = match(text);
      if (found) return found;
    }
  }
  return null;
}
