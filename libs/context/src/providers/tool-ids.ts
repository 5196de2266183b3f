// The log keeps ids as written; the body gets ids unique and valid for the provider, a pure
// function walked from the root, so appending never changes an earlier id (README.md).
import type { Block, Message } from '@arbor/domain/messages';
import type { ProviderName } from '../types';

export interface ToolRules {
  readonly idChars: RegExp | null;
  readonly idMaxLength: number;
  readonly nameChars: RegExp;
  readonly nameFirst: RegExp | null;
  readonly nameMaxLength: number;
}

/** Anthropic ids 64 kept, names 128; OpenAI names 64, Chat call ids ≤ 40; Gemini names 64. */
export const TOOL_RULES: Readonly<Record<ProviderName, ToolRules>> = {
  anthropic: {
    idChars: /[A-Za-z0-9_-]/,
    idMaxLength: 64,
    nameChars: /[A-Za-z0-9_-]/,
    nameFirst: null,
    nameMaxLength: 128,
  },
  'openai-chat': {
    idChars: null,
    idMaxLength: 40,
    nameChars: /[A-Za-z0-9_-]/,
    nameFirst: null,
    nameMaxLength: 64,
  },
  'openai-responses': {
    idChars: null,
    idMaxLength: 64,
    nameChars: /[A-Za-z0-9_-]/,
    nameFirst: null,
    nameMaxLength: 64,
  },
  gemini: {
    idChars: null,
    idMaxLength: 128,
    nameChars: /[A-Za-z0-9_.:-]/,
    nameFirst: /[A-Za-z_]/,
    nameMaxLength: 64,
  },
};

export interface ToolRename {
  readonly messageId: string;
  readonly block: number;
  readonly field: 'id' | 'tool_use_id' | 'name';
  readonly from: string;
  readonly to: string;
}

const every = (text: string, chars: RegExp): boolean => {
  for (const c of text) if (!chars.test(c)) return false;
  return true;
};

const idTaken = (rules: ToolRules, id: string): boolean =>
  id.length > 0 &&
  id.length <= rules.idMaxLength &&
  (rules.idChars === null || every(id, rules.idChars));

const nameTaken = (rules: ToolRules, name: string): boolean =>
  name.length > 0 &&
  name.length <= rules.nameMaxLength &&
  every(name, rules.nameChars) &&
  (rules.nameFirst === null || rules.nameFirst.test(name[0]));

export function toolNameProblem(provider: ProviderName, name: string): string | null {
  const rules = TOOL_RULES[provider];
  if (nameTaken(rules, name)) return null;
  const first = rules.nameFirst === null ? '' : ', starting with a letter or _';
  const extra = rules.nameChars.test('.') ? ' . :' : '';
  return `${provider} takes tool names of 1 to ${rules.nameMaxLength} letters, digits, _ -${extra}${first}`;
}

function sanitized(text: string, chars: RegExp | null): string {
  if (chars === null) return text;
  let out = '';
  for (const c of text) {
    if (chars.test(c)) out += c;
    else if (!out.endsWith('_')) out += '_';
  }
  return out;
}

function fresh(
  original: string,
  base: string,
  maxLength: number,
  free: (candidate: string) => boolean,
): string {
  const head = base.slice(0, maxLength);
  if (head !== original && head.length > 0 && free(head)) return head;
  for (let k = 2; ; k++) {
    const suffix = `_${k}`;
    const candidate = head.slice(0, maxLength - suffix.length) + suffix;
    if (free(candidate)) return candidate;
  }
}

function mappedName(rules: ToolRules, name: string, free: (c: string) => boolean): string {
  let base = sanitized(name, rules.nameChars);
  if (rules.nameFirst !== null && !(base.length > 0 && rules.nameFirst.test(base[0]))) {
    base = `_${base}`;
  }
  return fresh(name, base === '' ? 'tool' : base, rules.nameMaxLength, free);
}

/**
 * The messages with every tool-call id unique and valid for `provider`, results paired, history
 * names valid; unchanged messages are the same objects. `definitionNames`: the names of the
 * request's tool definitions (history names are never mapped onto them).
 */
export function assignToolIds(
  provider: ProviderName,
  messages: readonly Message[],
  definitionNames: readonly string[] = [],
): { messages: readonly Message[]; renames: ToolRename[] } {
  const rules = TOOL_RULES[provider];
  const usedIds = new Set<string>();
  const latest = new Map<string, string>();
  const names = new Map<string, string>();
  let usedNames: Set<string> | undefined;
  const renames: ToolRename[] = [];
  const out: Message[] = [];
  let changedAny = false;

  const takeId = (id: string): string => {
    const body =
      idTaken(rules, id) && !usedIds.has(id)
        ? id
        : fresh(
            id,
            sanitized(id, rules.idChars) || 'call',
            rules.idMaxLength,
            (c) => !usedIds.has(c),
          );
    usedIds.add(body);
    return body;
  };
  const nameFor = (name: string): string => {
    if (nameTaken(rules, name)) return name;
    const known = names.get(name);
    if (known !== undefined) return known;
    usedNames ??= allNames(messages, definitionNames);
    const taken = usedNames;
    const mapped = mappedName(rules, name, (c) => !taken.has(c));
    taken.add(mapped);
    names.set(name, mapped);
    return mapped;
  };

  for (const message of messages) {
    let content: Block[] | undefined;
    for (let i = 0; i < message.content.length; i++) {
      const block = message.content[i];
      let next: Block = block;
      if (block.type === 'tool_use') {
        const id = takeId(block.id);
        latest.set(block.id, id);
        const name = nameFor(block.name);
        if (id !== block.id) {
          renames.push({ messageId: message.id, block: i, field: 'id', from: block.id, to: id });
        }
        if (name !== block.name) {
          renames.push({
            messageId: message.id,
            block: i,
            field: 'name',
            from: block.name,
            to: name,
          });
        }
        if (id !== block.id || name !== block.name) next = { ...block, id, name };
      } else if (block.type === 'tool_result') {
        const original = block.tool_use_id;
        const id = latest.get(original) ?? takeId(original);
        if (id !== original) {
          renames.push({
            messageId: message.id,
            block: i,
            field: 'tool_use_id',
            from: original,
            to: id,
          });
          next = { ...block, tool_use_id: id };
        }
      }
      if (next !== block) {
        content ??= message.content.slice();
        content[i] = next;
      }
    }
    if (content !== undefined) changedAny = true;
    out.push(content === undefined ? message : { ...message, content });
  }
  return { messages: changedAny ? out : messages, renames };
}

function allNames(messages: readonly Message[], definitionNames: readonly string[]): Set<string> {
  const set = new Set(definitionNames);
  for (const m of messages) for (const b of m.content) if (b.type === 'tool_use') set.add(b.name);
  return set;
}
